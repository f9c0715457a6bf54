#include "semantics/semantics.hpp"

#include "semantics/dependence.hpp"

#include <algorithm>
#include <stdexcept>

namespace tfsem {

namespace {

bool once_per_instance(const Node& n) {
  return rules::with_rule(n.op.kind, [](auto r) { return decltype(r)::kOncePerInstance; });
}

}  // namespace

std::string_view violation_name(Violation::Kind k) {
  switch (k) {
    case Violation::Kind::merge_two_live: return "merge-two-live";
    case Violation::Kind::exit_twice: return "exit-twice";
  }
  return "?";
}

struct Semantics::DependenceOnce {
  std::once_flag once;
  std::unique_ptr<Dependence> value;
};

Semantics::Semantics(std::shared_ptr<const Program> program, Options options)
    : program_(std::move(program)), options_(options), dependence_(std::make_shared<DependenceOnce>()) {
  const auto& p = *program_;
  for (std::size_t i = 0; i < p.nodes().size(); ++i) {
    const NodeId n(i);
    const auto& node = p.node(n);
    const auto consumed = [&](EdgeId d) { return !p.edge(d).invariant; };
    rules::with_rule(node.op.kind, [&](auto r) {
      using R = decltype(r);
      access_.push_back(R::access(p, n));
      site_.push_back(R::site(node));
      control_stays_.push_back(R::kControlStays);
      branches_.push_back(R::kBranches);
      moves_.push_back(R::moves(p, n));
      evaluates_.push_back(R::evaluates(p, n));
      needs_record_.push_back(R::kNeedsRecord || (std::none_of(node.in.begin(), node.in.end(), consumed) &&
                                                  std::none_of(node.control_in.begin(), node.control_in.end(), consumed)));
    });
    loop_merge_.push_back(std::any_of(node.in.begin(), node.in.end(), [&](EdgeId d) { return p.edge(d).back; }));
  }
  for (const auto& e : p.edges()) {
    const bool reads_callee =
        e.call && e.dst.valid() && rules::with_rule(p.node(e.dst).op.kind, [](auto r) { return decltype(r)::kReadsCallee; });
    in_slot_.push_back(e.invariant ? InSlot::first_iteration : reads_callee ? InSlot::callee : InSlot::same);
  }
}

Tuple Semantics::evaluate(NodeId n, std::span<const Tensor> args) const {
  const auto& node = program_->node(n);
  return apply_function(*node.op.fn, args, node.attrs(), options_.terms);
}

const Dependence& Semantics::dependence() const {
  std::call_once(dependence_->once, [this] { dependence_->value = std::make_unique<Dependence>(*this); });
  return *dependence_->value;
}

std::string in_context_text(const Semantics& sem, ContextId c) {
  return c == kRootContext ? std::string() : " in context " + context_to_string(sem.program(), sem.contexts(), c);
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
  if (s.has_fired(t.node, record_context(t))) {
    out.push_back({{}, rules::with_rule(node.op.kind, [&](auto r) { return r.why_fired(*this, t); })});
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
                             " and iteration " + std::to_string(inst ? ctx[inst->iterations[inst->done]].iteration : 0) + " is not done (C-BOUND)"});
      return out;
    }
  }
  auto empty_edge = [&](EdgeId d) {
    const auto slot = in_slot(d, t.context);
    const auto& e = p.edge(d);
    std::string reason = "incoming " + std::string(edge_kind_name(e.kind)) + " edge '" + e.name() + "'" +
                         in_context_text(*this, slot.context) + " is EMPTY";
    if (e.is_input()) reason += " (an input edge, already consumed)";
    else reason += rules::with_rule(p.node(e.src).op.kind, [&](auto r) { return r.why_empty(*this, s, e, slot); });
    out.push_back({d, std::move(reason)});
  };
  auto is_empty_slot = [&](EdgeId d) { return s.holds(in_slot(d, t.context).edge, in_slot(d, t.context).context) == Holds::empty; };
  rules::with_rule(node.op.kind, [&](auto r) {
    for (auto d : node.in)
      if (is_empty_slot(d) && r.waits_for(*this, d, t.context)) empty_edge(d);
    for (auto d : node.control_in)
      if (is_empty_slot(d)) empty_edge(d);
    if (out.empty())
      if (auto blocker = r.why_blocked(*this, t)) out.push_back(std::move(*blocker));
  });
  return out;
}

std::vector<StuckNode> Semantics::stuck(const State& s) const {
  const auto& p = *program_;
  const auto f = frontier(s);
  std::vector<Transition> missing;
  for (auto c : f.present)
    for (auto n : p.topological_order())
      if (p.node(n).frame == (*contexts_)[c].frame && !once_per_instance(p.node(n)) && !s.has_fired(n, c))
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
  std::vector<Violation> out;
  for (const auto& t : s.fired)
    rules::with_rule(program_->node(t.node).op.kind, [&](auto r) { r.violations(*this, s, t, out); });
  std::stable_sort(out.begin(), out.end(), [&](const Violation& a, const Violation& b) {
    if (a.at.context != b.at.context) return contexts_->before(a.at.context, b.at.context);
    return a.at.node < b.at.node;
  });
  return out;
}

}  // namespace tfsem
