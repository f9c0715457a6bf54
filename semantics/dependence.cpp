#include "semantics/dependence.hpp"

#include <algorithm>

namespace tfsem {

Dependence::Dependence(const Semantics& sem)
    : sem_(sem), program_(sem.program()), loops_(program_.frames().size() > 1) {
  const auto& p = program_;
  accessors_.resize(p.variables().size());
  touching_.resize(p.variables().size());
  for (std::size_t i = 0; i < p.nodes().size(); ++i) {
    const NodeId n(i);
    const auto& node = p.node(n);
    if (const auto a = sem.access(n); a.kind != Access::Kind::none) {
      accessors_[a.var.index()].push_back(n);
      if (node.frame.index() != 0) {
        touching_[a.var.index()].push_back(node.frame);
        for (auto f : p.frame(node.frame).outer)
          if (f.index() != 0) touching_[a.var.index()].push_back(f);
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
  for (auto& frames : touching_) {
    std::sort(frames.begin(), frames.end());
    frames.erase(std::unique(frames.begin(), frames.end()), frames.end());
  }
}

bool Dependence::independent(Transition a, Transition b) const {
  const auto x = sem_.access(a.node), y = sem_.access(b.node);
  if (x.kind != Access::Kind::none && y.kind != Access::Kind::none && x.var == y.var &&
      (x.kind == Access::Kind::update || y.kind == Access::Kind::update))
    return false;
  // One delivery per frame instance (C-ONCE): one Exit's deliveries to one context compete.
  if (a.node == b.node && once_per_instance_[a.node.index()] && sem_.record_context(a) == sem_.record_context(b)) return false;
  auto delivers = [&](Transition from, Transition to) {
    const auto& targets = delivers_to_[from.node.index()];
    return std::find(targets.begin(), targets.end(), to.node) != targets.end() &&
           sem_.out_context(from.node, from.context) == to.context;
  };
  return !delivers(a, b) && !delivers(b, a);
}

bool Dependence::overwrites(NodeId n, const Content& v) const {
  if (!may_overwrite(n)) return false;
  const auto* t = std::get_if<Tensor>(&v);
  return t != nullptr && !t->is_error();
}

bool Dependence::deterministic(NodeId n) const {
  const auto& op = program_.node(n).op;
  return op.fn == nullptr || !op.fn->nondeterministic;
}

void Dependence::build_ancestors() const {
  std::call_once(ancestors_->once, [this] {
    const auto& p = program_;
    const std::size_t n = p.nodes().size(), words = (n + 63) / 64;
    auto& rows = ancestors_->rows;
    rows.assign(n, std::vector<std::uint64_t>(words, 0));
    // Row v: the nodes that fire before v fires. A node needs every input; a
    // Merge needs every control input but only one data input, so it gets the
    // intersection over its data inputs (its back edges bring nothing new).
    for (auto v : p.topological_order()) {
      const auto& node = p.node(v);
      auto& row = rows[v.index()];
      auto need = [&](EdgeId d, std::vector<std::uint64_t>& into) {
        const auto& e = p.edge(d);
        if (e.is_input() || e.call) return;  // a call edge's source may come later in the order
        for (std::size_t w = 0; w < words; ++w) into[w] |= rows[e.src.index()][w];
        into[e.src.index() / 64] |= std::uint64_t{1} << (e.src.index() % 64);
      };
      for (auto d : node.control_in) need(d, row);
      if (rules::with_rule(node.op.kind, [](auto r) { return decltype(r)::kNeedsEveryInput; })) {
        for (auto d : node.in) need(d, row);
        continue;
      }
      const bool any = std::any_of(node.in.begin(), node.in.end(), [&](EdgeId d) { return !p.edge(d).back && !p.edge(d).call; });
      std::vector<std::uint64_t> common(words, any ? ~std::uint64_t{0} : 0);
      for (auto d : node.in) {
        if (p.edge(d).back || p.edge(d).call) continue;
        std::vector<std::uint64_t> one(words, 0);
        need(d, one);
        for (std::size_t w = 0; w < words; ++w) common[w] &= one[w];
      }
      for (std::size_t w = 0; w < words; ++w) row[w] |= common[w];
    }
    ancestors_->built.store(true, std::memory_order_release);
  });
}

}  // namespace tfsem
