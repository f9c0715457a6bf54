// A step (section 3.2.1): the firing of one transition. What every firing
// does is here; what the firing node's operation does is its arm's fire
// (rules/, found through the table by op kind).
#include "semantics/semantics.hpp"

#include <stdexcept>

namespace tfsem {

Successors Semantics::fire(const State& s, Transition t) const {
  const auto& node = program_->node(t.node);
  if (!enabled(s, t))
    throw std::logic_error("fire: " + transition_to_string(*program_, *contexts_, t) + " is not enabled");
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
