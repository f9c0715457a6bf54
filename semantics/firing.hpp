// One step under construction (section 3.2.1): the rule of the firing node
// reads s and writes s'. Semantics::fire starts s' as s with the transition
// recorded (C-ONCE) and its incoming control edges consumed (S-CTRL-1); the
// node's rule (rules/) then changes only the slots of its own edges and, for
// Assign-f, VarValue(x) (S-FRAME).
// Part of semantics.hpp, which includes it after the Semantics class.
#pragma once

#include <span>
#include <utility>

namespace tfsem {

struct Firing {
  const Semantics& sem;
  const State& s;
  Transition t;
  const Node& node;
  State next;  // s'

  // InTransit(d) in s, for input d of the transition.
  [[nodiscard]] const Content& input(EdgeId d) const {
    const auto slot = sem.in_slot(d, t.context);
    return s.at(slot.edge, slot.context);
  }
  // Whether a data input, or a control input (`dead_control`), is DEAD (C-DEAD).
  [[nodiscard]] bool dead(bool dead_control) const {
    if (dead_control) return true;
    for (auto d : node.in)
      if (is_dead(input(d))) return true;
    return false;
  }
  // "the incoming edges are EMPTY afterwards"; a loop invariant stays for
  // every iteration (C-ENTER-CONST).
  void consume(EdgeId d) { consume(next, d); }
  void consume(State& into, EdgeId d) const {
    if (!sem.program().edge(d).invariant) into.put(sem.in_slot(d, t.context), Empty{});
  }
  // InTransit(e) in s', in the context of n's outgoing tokens (C-SLOT).
  void emit(State& into, EdgeId e, Content c) const { into.put(sem.out_slot(e, t.context), std::move(c)); }
  // S-CTRL-2: GO on every outgoing control edge; C-DEAD: DEAD instead.
  void control_out(Content c) {
    for (auto e : node.control_out) emit(next, e, c);
  }
  Successors one() { return Successors{std::move(next)}; }
};

// C-DEAD: a node (other than Merge, Exit, NextIteration and Call) with a DEAD
// input consumes its inputs and puts DEAD on every outgoing edge: no function
// is applied, and a dead Read reads nothing, a dead Assign-f changes nothing.
inline Successors fire_dead(Firing& f) {
  for (auto d : f.node.in) f.consume(d);
  for (auto e : f.node.out) f.emit(f.next, e, Dead{});
  f.control_out(Dead{});
  return f.one();
}

// The control-flow ops that move one token: they consume their input and put
// it on their output; their rules differ only in the context it lands in
// (out_context), and in the context the firing is recorded in.
inline Successors pass_on(Firing& f) {
  const auto v = f.input(f.node.in[0]);
  f.consume(f.node.in[0]);
  f.emit(f.next, f.node.out[0], v);
  f.control_out(Go{});
  return f.one();
}

}  // namespace tfsem
