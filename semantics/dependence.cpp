#include "semantics/dependence.hpp"

#include <algorithm>

namespace tfsem {

namespace {

// The tensor edge d always carries when it carries one, if the program says
// it statically: an input edge's initial tensor, or a Const's value.
const Tensor* static_operand(const Program& p, EdgeId d) {
  const auto& e = p.edge(d);
  if (e.is_input()) return std::get_if<Tensor>(&p.initial(d));
  const auto& src = p.node(e.src);
  if (src.op.kind != OpKind::function || src.op.fn != Registry::builtin().find("Const")) return nullptr;
  return std::get_if<Tensor>(&src.attrs().at("value"));
}

bool is_integer(DType d) { return d == DType::i32 || d == DType::i64; }

// S-COMMUTE: whether update n of x keeps the invariant that makes x's updates
// commute, given x's initial value w.
bool commuting_update(const Semantics& sem, const Tensor& w, NodeId n, const FunctionDef*& symbolic_fn) {
  const auto& p = sem.program();
  const auto& node = p.node(n);
  const auto* f = node.op.fn;
  if (w.is_dense()) {
    // Integers: VarValue(x) stays a dense tensor of w's dtype and shape, since
    // each operand is one of that dtype, a scalar or of w's shape, and wrapping
    // Add and Sub never fail; (w ± a) ± b = (w ± b) ± a.
    const auto& reg = Registry::builtin();
    if (f != reg.find("Add") && f != reg.find("Sub")) return false;
    const auto* v = static_operand(p, node.in[1]);
    if (v == nullptr || !v->is_dense()) return false;
    const auto& wd = w.as_dense();
    const auto& vd = v->as_dense();
    return is_integer(wd.dtype()) && vd.dtype() == wd.dtype() && (vd.shape.empty() || vd.shape == wd.shape);
  }
  // Terms: VarValue(x) stays a term, since f of a term and any tensor is one
  // (an error operand has no side effect, S-ERR-ASSIGN), and with the terms
  // normalized modulo f's laws, f(f(w, a), b) = f(f(w, b), a) for one f both
  // associative and commutative.
  if (!w.is_term() || !sem.options().terms.normalize || !f->laws.associative || !f->laws.commutative) return false;
  if (symbolic_fn == nullptr) symbolic_fn = f;
  return f == symbolic_fn;
}

// S-COMMUTE: whether the updates of x commute in every reachable state. x's
// initial value is the first VarValue(x), and each update keeps the invariant
// commuting_update checks, so it holds in every state, of every run of a
// session too (S-SESSION). An uninitialized x, a float, an operand not known
// statically, or an update that may fail, so that the order may decide which
// error x holds, makes them dependent, as do two different functions.
bool commuting_updates(const Semantics& sem, VarId x, const std::vector<NodeId>& accessors) {
  const auto& w = sem.program().variable(x).initial;
  const FunctionDef* symbolic_fn = nullptr;
  return std::all_of(accessors.begin(), accessors.end(), [&](NodeId n) {
    return sem.access(n).kind != Access::Kind::update || commuting_update(sem, w, n, symbolic_fn);
  });
}

}  // namespace

Dependence::Dependence(const Semantics& sem)
    : sem_(sem), program_(sem.program()), loops_(program_.frames().size() > 1) {
  const auto& p = program_;
  accessors_.resize(p.variables().size());
  touching_.resize(p.variables().size());
  reading_.resize(p.variables().size());
  for (std::size_t i = 0; i < p.nodes().size(); ++i) {
    const NodeId n(i);
    const auto& node = p.node(n);
    if (const auto a = sem.access(n); a.kind != Access::Kind::none) {
      accessors_[a.var.index()].push_back(n);
      auto enclosing = [&](std::vector<FrameId>& frames) {
        frames.push_back(node.frame);
        for (auto f : p.frame(node.frame).outer)
          if (f.index() != 0) frames.push_back(f);
      };
      if (node.frame.index() != 0) {
        enclosing(touching_[a.var.index()]);
        if (a.kind == Access::Kind::read) enclosing(reading_[a.var.index()]);
      }
    }
    auto& to = delivers_to_.emplace_back();
    for (auto e : node.out)
      if (const auto& edge = p.edge(e); !edge.is_output())
        if (rules::with_rule(p.node(edge.dst).op.kind, [](auto r) { return decltype(r)::kChooses; })) to.push_back(edge.dst);
    rules::with_rule(node.op.kind, [&](auto r) {
      using R = decltype(r);
      may_overwrite_.push_back(R::may_overwrite(node.op));
      once_per_instance_.push_back(R::kOncePerInstance);
    });
  }
  for (auto* by_var : {&touching_, &reading_})
    for (auto& frames : *by_var) {
      std::sort(frames.begin(), frames.end());
      frames.erase(std::unique(frames.begin(), frames.end()), frames.end());
    }
  for (std::size_t x = 0; x < accessors_.size(); ++x) commuting_.push_back(commuting_updates(sem, VarId(x), accessors_[x]));
}

bool Dependence::independent(Transition a, Transition b) const {
  if (conflict(sem_.access(a.node), sem_.access(b.node))) return false;
  // One delivery per frame instance (C-ONCE): one Exit's deliveries to one context compete.
  if (a.node == b.node && once_per_instance_[a.node.index()] && sem_.record_context(a) == sem_.record_context(b)) return false;
  auto delivers = [&](Transition from, Transition to) {
    const auto& targets = delivers_to_[from.node.index()];
    return std::find(targets.begin(), targets.end(), to.node) != targets.end() &&
           sem_.out_context(from.node, from.context) == to.context;
  };
  return !delivers(a, b) && !delivers(b, a);
}

bool Dependence::overwrites(NodeId n, const Content& handle, const Content& v, bool dead_input) const {
  if (!may_overwrite(n) || dead_input || !std::holds_alternative<VarId>(handle)) return false;
  const auto* t = std::get_if<Tensor>(&v);
  return t != nullptr && !t->is_error();
}

bool Dependence::deterministic(NodeId n) const {
  const auto& op = program_.node(n).op;
  return op.fn == nullptr || !op.fn->nondeterministic;
}

void Dependence::build_ancestors() const {
  std::call_once(ancestors_->once, [this] {
    auto& an = *ancestors_;
    const auto& p = program_;
    const std::size_t n = p.nodes().size();
    std::size_t columns = 0;
    for (const auto& nodes : accessors_) columns += nodes.size();
    const std::size_t words = an.words = (columns + 63) / 64;
    const bool loops = std::any_of(p.edges().begin(), p.edges().end(), [](const Edge& e) { return e.back; });
    const auto finish = [&] {
      build_race_free();
      an.built.store(true, std::memory_order_release);
    };
    // Too dear a table (with loops, the pass before is kept too): none.
    if (n * words * sizeof(std::uint64_t) * (loops ? 2 : 1) > kCheapPrecedes) return finish();
    an.column.assign(n, kNoColumn);
    std::uint32_t column = 0;
    for (const auto& nodes : accessors_)
      for (auto u : nodes) an.column[u.index()] = column++;
    // Row v: the accessors that fire before v fires. A node needs every
    // input; a Merge needs every control input but only one data input, so it
    // gets the intersection over its data inputs. A loop's Merge takes
    // iteration k's value from its back edge, whose source s is in iteration
    // k - 1 and comes later in the order: its share is s and row s of the
    // pass before, the first pass taking it to need everything (to add
    // nothing to the intersection). Passes repeat until no row changes (rows
    // only shrink). Sound by induction on k: a node that row s says needs x
    // needs it in every iteration, as iteration 0's Merge gets x's need from
    // its Enter. A call edge's source may come later too, and is not
    // followed: a Merge fed by one needs its control inputs alone.
    auto& rows = an.rows;
    std::vector<std::uint64_t> before, common(words), one(words);  // before: the pass before, for back edges
    for (bool first = true;; first = false) {
      rows.assign(n * words, 0);
      for (auto v : p.topological_order()) {
        const auto& node = p.node(v);
        auto* const row = &rows[v.index() * words];
        auto need = [&](EdgeId d, std::uint64_t* into) {
          const auto& e = p.edge(d);
          if (e.is_input() || e.call) return;
          if (e.back && first) {
            std::fill(into, into + words, ~std::uint64_t{0});
          } else {
            const auto* from = (e.back ? before : rows).data() + e.src.index() * words;
            for (std::size_t w = 0; w < words; ++w) into[w] |= from[w];
          }
          if (const auto c = an.column[e.src.index()]; c != kNoColumn) into[c / 64] |= std::uint64_t{1} << (c % 64);
        };
        for (auto d : node.control_in) need(d, row);
        if (rules::with_rule(node.op.kind, [](auto r) { return decltype(r)::kNeedsEveryInput; })) {
          for (auto d : node.in) need(d, row);
          continue;
        }
        if (node.in.empty() || std::any_of(node.in.begin(), node.in.end(), [&](EdgeId d) { return p.edge(d).call; })) continue;
        std::fill(common.begin(), common.end(), ~std::uint64_t{0});
        for (auto d : node.in) {
          std::fill(one.begin(), one.end(), 0);
          need(d, one.data());
          for (std::size_t w = 0; w < words; ++w) common[w] &= one[w];
        }
        for (std::size_t w = 0; w < words; ++w) row[w] |= common[w];
      }
      if (!loops || (!first && rows == before)) break;
      before = rows;
    }
    finish();
  });
}

void Dependence::build_race_free() const {
  auto& an = *ancestors_;
  const auto root = [&](NodeId n) { return program_.node(n).frame.index() == 0; };
  const auto update = [&](NodeId n) { return sem_.access(n).kind == Access::Kind::update; };
  an.race_free.assign(accessors_.size(), false);
  if (an.column.empty()) return;  // no table: too large a graph to know
  for (std::size_t x = 0; x < accessors_.size(); ++x) {
    // A node of another frame fires in many contexts, which may race. Two
    // reads never do: each update is looked at against every other accessor
    // (another update once, from the first of the two).
    const auto& nodes = accessors_[x];
    bool free = std::all_of(nodes.begin(), nodes.end(), root);
    for (std::size_t i = 0; free && i < nodes.size(); ++i) {
      if (!update(nodes[i])) continue;
      for (std::size_t j = 0; free && j < nodes.size(); ++j) {
        if (j == i || (j < i && update(nodes[j]))) continue;
        free = an.before(nodes[i], nodes[j]) || an.before(nodes[j], nodes[i]);
      }
    }
    an.race_free[x] = free;
  }
}

}  // namespace tfsem
