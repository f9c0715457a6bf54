#include "semantics/semantics.hpp"

#include <algorithm>
#include <stdexcept>

namespace tfsem {

namespace {

// The Semantics' view of a State (frontier.hpp).
struct StateView {
  const State& s;
  [[nodiscard]] Holds holds(Slot slot) const { return s.holds(slot.edge, slot.context); }
  [[nodiscard]] bool fired(NodeId n, ContextId c) const { return s.has_fired(n, c); }
  template <class F>
  void contexts(F&& f) const {
    for (const auto& entry : s.in_transit) f(entry.first.context);
    for (const auto& t : s.fired) f(t.context);
  }
};

}  // namespace

std::string_view violation_name(Violation::Kind k) {
  switch (k) {
    case Violation::Kind::merge_two_live: return "merge-two-live";
    case Violation::Kind::exit_twice: return "exit-twice";
  }
  return "?";
}

Semantics::Semantics(std::shared_ptr<const Program> program, Options options)
    : program_(std::move(program)), options_(options), loops_(program_->frames().size() > 1) {
  const auto& p = *program_;
  accessors_.resize(p.variables().size());
  touching_.resize(p.variables().size());
  for (std::size_t i = 0; i < p.nodes().size(); ++i) {
    const NodeId n(i);
    const auto& node = p.node(n);
    Access a;
    // A function dereferencing a variable edge (S-DEREF) reads the variable as a Read does.
    if (node.op.kind == OpKind::read || (node.op.kind == OpKind::function && p.variable_of(n)))
      a = {Access::Kind::read, *p.variable_of(n)};
    else if (node.op.kind == OpKind::assign) a = {Access::Kind::update, *p.variable_of(n)};
    access_.push_back(a);
    if (a.kind != Access::Kind::none) {
      accessors_[a.var.index()].push_back(n);
      if (node.frame.index() != 0) {
        touching_[a.var.index()].push_back(node.frame);
        for (auto f : p.frame(node.frame).outer)
          if (f.index() != 0) touching_[a.var.index()].push_back(f);
      }
    }
    site_.push_back(node.op.kind == OpKind::call || node.op.kind == OpKind::return_
                        ? static_cast<std::uint32_t>(std::get<std::int64_t>(node.attrs->at(std::string(kSiteAttr))))
                        : 0);
    loop_merge_.push_back(node.op.kind == OpKind::merge &&
                          std::any_of(node.in.begin(), node.in.end(), [&](EdgeId d) { return p.edge(d).back; }));
    auto& to = delivers_to_.emplace_back();
    for (auto e : node.out)
      if (const auto& edge = p.edge(e); !edge.is_output())
        if (const auto k = p.node(edge.dst).op.kind; k == OpKind::merge || k == OpKind::exit) to.push_back(edge.dst);
    const auto consumed = [&](EdgeId d) { return !p.edge(d).invariant; };
    needs_record_.push_back(node.op.kind == OpKind::merge || node.op.kind == OpKind::exit ||
                            (std::none_of(node.in.begin(), node.in.end(), consumed) &&
                             std::none_of(node.control_in.begin(), node.control_in.end(), consumed)));
  }
  for (const auto& e : p.edges())
    in_slot_.push_back(e.invariant                                                         ? InSlot::first_iteration
                       : e.call && e.dst.valid() && p.node(e.dst).op.kind == OpKind::return_ ? InSlot::callee
                                                                                             : InSlot::same);
  for (auto& frames : touching_) {
    std::sort(frames.begin(), frames.end());
    frames.erase(std::unique(frames.begin(), frames.end()), frames.end());
  }
}

State Semantics::initial() const {
  State s;
  // S-INIT-3: "for each variable x, VarValue(x) is in Tensors" (footnote 4).
  for (const auto& v : program_->variables()) s.var_value.push_back(v.initial);
  // S-INIT-1, S-INIT-2: input edges are not EMPTY; all other edges are EMPTY.
  for (const auto& [e, initial] : program_->inputs()) s.put({e, kRootContext}, initial);
  return s;
}

State Semantics::next_run(const State& end_of_run) const {
  State s = initial();
  s.var_value = end_of_run.var_value;  // S-SESSION: "mutable state does persist across executions"
  return s;
}

ContextId Semantics::out_context(NodeId n, ContextId c) const {
  const auto& node = program_->node(n);
  switch (node.op.kind) {
    // C-ENTER: into iteration 0 of the frame instance entered from c.
    case OpKind::enter: return contexts_->child(c, program_->edge(node.out[0]).frame, 0);
    // C-EXIT: back to the parent context.
    case OpKind::exit: return (*contexts_)[c].parent;
    // C-NEXT: iteration i to i + 1.
    case OpKind::next_iteration: return contexts_->next_iteration(c);
    // C-CALL: into the function's frame, the site appended to the tag.
    case OpKind::call: return contexts_->call(c, program_->edge(node.out[0]).frame, site_[n.index()]);
    default: return c;
  }
}

Frontier Semantics::frontier(const State& s) const {
  Frontier f;
  frontier(StateView{s}, f);
  return f;
}

bool Semantics::enabled(const State& s, Transition t) const {
  const auto f = frontier(s);
  return std::binary_search(f.enabled.begin(), f.enabled.end(), t);
}

std::vector<Blocker> Semantics::why_not_enabled(const State& s, Transition t) const {
  const auto& p = *program_;
  const auto& ctx = *contexts_;
  const auto& node = p.node(t.node);
  const auto f = frontier(s);
  std::vector<Blocker> out;
  auto where = [&](ContextId c) {
    return c == kRootContext ? std::string() : " in context " + context_to_string(p, ctx, c);
  };
  if (s.has_fired(t.node, record_context(t))) {
    out.push_back({{}, node.op.kind == OpKind::exit ? "it has already delivered a value" + where(record_context(t))
                                                     : "it has already fired" + where(t.context)});
    return out;
  }
  if (!f.is_present(t.context)) {
    out.push_back({{}, "context " + context_to_string(p, ctx, t.context) + " does not exist yet"});
    return out;
  }
  if (!f.is_started(t.context)) {
    for (std::uint32_t depth = 1; depth <= ctx[t.context].depth; ++depth) {
      const auto c = ctx.at_depth(t.context, depth);
      if (f.is_started(c)) continue;
      const auto& frame = p.frame(ctx[c].frame);
      const auto* inst = f.instance(ctx[c].parent, ctx[c].frame);
      out.push_back({{}, "iteration " + std::to_string(ctx[c].iteration) + " of loop '" + frame.name +
                             "' has not started: parallel_iterations is " + std::to_string(frame.parallel_iterations) +
                             " and iteration " + std::to_string(inst ? inst->done : 0) + " is not done (C-BOUND)"});
      return out;
    }
  }
  auto empty_edge = [&](EdgeId d) {
    const auto slot = in_slot(d, t.context);
    const auto& e = p.edge(d);
    std::string reason = "incoming " + std::string(edge_kind_name(e.kind)) + " edge '" + e.name + "'" + where(slot.context) + " is EMPTY";
    if (e.is_input()) reason += " (an input edge, already consumed)";
    else if (p.node(e.src).op.kind == OpKind::exit) reason += " (Exit '" + p.node(e.src).name + "' has not delivered)";
    else if (p.node(e.src).op.kind == OpKind::next_iteration && ctx[slot.context].iteration == 0)
      reason += " (NextIteration '" + p.node(e.src).name + "' feeds later iterations only)";
    else if (p.node(e.src).op.kind == OpKind::enter && ctx[slot.context].iteration != 0)
      reason += " (Enter '" + p.node(e.src).name + "' feeds iteration 0 only)";
    else if (!s.has_fired(e.src, ctx[slot.context].depth > 0 && p.node(e.src).op.kind == OpKind::enter ? ctx[slot.context].parent
                                 : p.node(e.src).op.kind == OpKind::next_iteration ? ctx[slot.context].previous : slot.context))
      reason += " (node '" + p.node(e.src).name + "' has not fired)";
    out.push_back({d, std::move(reason)});
  };
  auto is_empty_slot = [&](EdgeId d) { return StateView{s}.holds(in_slot(d, t.context)) == Holds::empty; };
  for (auto d : node.in)
    if (is_empty_slot(d) && (node.op.kind != OpKind::merge || expected(StateView{s}, d, t.context))) empty_edge(d);
  for (auto d : node.control_in)
    if (is_empty_slot(d)) empty_edge(d);
  if (out.empty() && node.op.kind == OpKind::exit)
    out.push_back({node.in[0], "its input is DEAD: a dead Exit delivers DEAD once loop '" + p.frame(node.frame).name +
                                   "' is complete, from its last iteration (C-EXIT-DEAD)"});
  if (out.empty() && node.op.kind == OpKind::merge)
    out.push_back({{}, "no live input, and not every input it waits for is DEAD"});
  return out;
}

std::vector<StuckNode> Semantics::stuck(const State& s) const {
  const auto& p = *program_;
  const auto f = frontier(s);
  std::vector<Transition> missing;
  for (auto c : f.present)
    for (auto n : p.topological_order())
      if (p.node(n).frame == (*contexts_)[c].frame && p.node(n).op.kind != OpKind::exit && !s.has_fired(n, c))
        missing.push_back({n, c});
  // An Exit delivers once per frame instance (C-EXIT, C-EXIT-DEAD).
  for (const auto& inst : f.instances)
    for (auto x : p.frame(inst.frame).exits)
      if (!s.has_fired(x, inst.parent)) missing.push_back({x, inst.iterations.back()});
  // In a canonical order: by context, then topologically, whatever the order contexts were met in.
  std::vector<std::size_t> position(p.nodes().size());
  for (std::size_t i = 0; i < p.topological_order().size(); ++i) position[p.topological_order()[i].index()] = i;
  std::stable_sort(missing.begin(), missing.end(), [&](Transition a, Transition b) {
    if (a.context != b.context) return contexts_->before(a.context, b.context);
    return position[a.node.index()] < position[b.node.index()];
  });
  std::vector<StuckNode> out;
  for (auto t : missing) out.push_back({t, why_not_enabled(s, t)});
  return out;
}

std::vector<Violation> Semantics::violations(const State& s) const {
  const auto& p = *program_;
  std::vector<Violation> out;
  for (const auto& t : s.fired) {
    const auto& node = p.node(t.node);
    if (node.op.kind == OpKind::merge) {
      // C-MERGE-TWO-LIVE: a live value left on an input of a Merge that has fired
      // (a loop invariant stays there by design, C-ENTER-CONST).
      for (auto d : node.in)
        if (!p.edge(d).invariant && s.holds(d, t.context) == Holds::live)
          out.push_back({Violation::Kind::merge_two_live, t, d});
    } else if (node.op.kind == OpKind::exit) {
      // C-EXIT-TWICE: a live value left for an Exit that has delivered one.
      for (const auto& [slot, c] : s.in_transit)
        if (slot.edge == node.in[0] && tfsem::holds(c) == Holds::live && (*contexts_)[slot.context].parent == t.context)
          out.push_back({Violation::Kind::exit_twice, {t.node, slot.context}, slot.edge});
    }
  }
  std::stable_sort(out.begin(), out.end(), [&](const Violation& a, const Violation& b) {
    if (a.at.context != b.at.context) return contexts_->before(a.at.context, b.at.context);
    return a.at.node < b.at.node;
  });
  return out;
}

bool Semantics::may_overwrite(NodeId n) const {
  const auto& op = program_->node(n).op;
  return op.kind == OpKind::assign && (op.fn->ignored_args & 1U) != 0 && !op.fn->nondeterministic;
}

bool Semantics::overwrites(NodeId n, const Content& v) const {
  if (!may_overwrite(n)) return false;
  const auto* t = std::get_if<Tensor>(&v);
  return t != nullptr && !t->is_error();
}

bool Semantics::deterministic(NodeId n) const {
  const auto& op = program_->node(n).op;
  return op.fn == nullptr || !op.fn->nondeterministic;
}

void Semantics::build_ancestors() const {
  std::call_once(ancestors_->once, [this] {
    const auto& p = *program_;
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
      if (node.op.kind != OpKind::merge) {
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
