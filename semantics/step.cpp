// A step (section 3.2.1): the firing of one transition. What every firing
// does is here; what the firing node's operation does is its arm's fire
// (rules/, found through the table by op kind).
#include "semantics/semantics.hpp"

#include <stdexcept>

namespace tfsem {

Successors Semantics::fire(const State& s, Transition t) const {
  if (!enabled(s, t))
    throw std::logic_error("fire: " + transition_to_string(*program_, *contexts_, t) + " is not enabled");
  auto out = apply(s, t);
  if (program_->frames().size() == 1) return out;
  std::vector<ContextId> work;
  for (auto& next : out) {
    touched(t, work);
    // C-FINISHED: what left goes, its slots and its records.
    finished(StateView{next}, work, [&](ContextId c) {
      for (auto it = next.in_transit.begin(); it != next.in_transit.end();)
        it = it->first.context == c ? next.in_transit.erase(it) : std::next(it);
      for (auto it = next.fired.begin(); it != next.fired.end();)
        if (it->context == c) {
          it = next.fired.erase(it);
          ++next.retired;
        } else {
          ++it;
        }
    });
  }
  return out;
}

void Semantics::touched(Transition t, std::vector<ContextId>& out) const {
  const auto& node = program_->node(t.node);
  out.push_back(t.context);
  for (const auto* edges : {&node.in, &node.control_in})
    for (auto d : *edges)
      if (const auto c = in_slot(d, t.context).context; c != t.context) out.push_back(c);
  if (!node.out.empty())
    if (const auto c = out_context(t.node, t.context); c != t.context) out.push_back(c);
}

bool Semantics::keeps_context(EdgeId d) const {
  const auto& e = program_->edge(d);
  if (e.invariant || !e.dst.valid()) return false;
  return !rules::with_rule(program_->node(e.dst).op.kind, [](auto r) { return decltype(r)::kReadsCallee; });
}

Successors Semantics::apply(const State& s, Transition t) const {
  const auto& node = program_->node(t.node);
  Firing f{*this, s, t, node, s};
  f.next.fired.insert({t.node, record_context(t)});  // C-ONCE
  bool dead = false;
  for (auto d : node.control_in) {
    dead = dead || is_dead(f.input(d));
    f.consume(d);  // S-CTRL-1: "InTransit(d) = EMPTY in s'"
  }
  return rules::with_rule(node.op.kind, [&](auto r) { return r.fire(f, dead); });
}

}  // namespace tfsem
