// While loops (section 4; thesis section 3.2): Enter takes a value into
// iteration 0 of a frame instance, NextIteration from one iteration to the
// next, Exit back to the parent context. Which iterations may run (C-BOUND)
// and when one is done (C-DONE) are the frontier's (frontier_impl.hpp).
#pragma once

#include "semantics/rules/op_rule.hpp"

namespace tfsem::rules {

// Enter(frame).
struct Enter : OpRule {
  static std::uint32_t moves(const Program&, NodeId) { return kMovesFirstInput; }
  // C-ENTER: into iteration 0 of the frame instance entered from c.
  static ContextId out_context(const Semantics& sem, NodeId n, ContextId c) {
    const auto& p = sem.program();
    return sem.contexts().child(c, p.edge(p.node(n).out[0]).frame, 0);
  }
  // C-ENTER: Enter consumes its input in context c and puts it in iteration 0 of
  // the frame instance entered from c (C-ENTER-CONST: a constant Enter's token
  // there serves every iteration). DEAD enters too, by C-DEAD.
  static Successors fire(Firing& f, bool dead_control) {
    if (f.dead(dead_control)) return fire_dead(f);
    return pass_on(f);
  }
  static std::string why_empty(const Semantics& sem, const State& s, const Edge& e, Slot slot) {
    const auto& ctx = sem.contexts()[slot.context];
    if (ctx.iteration != 0) return " (Enter '" + std::string(sem.program().node(e.src).name()) + "' feeds iteration 0 only)";
    return OpRule::why_empty(sem, s, e, {slot.edge, ctx.depth > 0 ? ctx.parent : slot.context});
  }
  // It fills iteration 0 only, firing in the parent context.
  template <class Dep, class View>
  static void producers(const Dep& dep, const View& v, const Frontier&, const Edge& e, Slot s, std::vector<Transition>& out) {
    const auto& entry = dep.semantics().contexts()[s.context];
    if (entry.iteration == 0) dep.unfired(v, {e.src, entry.parent}, out);
  }
};

// NextIteration.
struct NextIteration : OpRule {
  static std::uint32_t moves(const Program&, NodeId) { return kMovesFirstInput; }
  // C-NEXT: iteration i to i + 1.
  static ContextId out_context(const Semantics& sem, NodeId, ContextId c) { return sem.contexts().next_iteration(c); }
  // C-NEXT: NextIteration consumes its input in iteration i and puts it in
  // iteration i + 1 of the same frame instance; C-NEXT-DEAD: deadness stops
  // at NextIteration.
  static Successors fire(Firing& f, bool dead_control) {
    if (!dead_control && !is_dead(f.input(f.node.in[0]))) return pass_on(f);
    f.consume(f.node.in[0]);
    return f.one();
  }
  static std::string why_empty(const Semantics& sem, const State& s, const Edge& e, Slot slot) {
    const auto& ctx = sem.contexts()[slot.context];
    if (ctx.iteration == 0)
      return " (NextIteration '" + std::string(sem.program().node(e.src).name()) + "' feeds later iterations only)";
    return OpRule::why_empty(sem, s, e, {slot.edge, ctx.previous});
  }
  // It fills iteration i from iteration i - 1.
  template <class Dep, class View>
  static void producers(const Dep& dep, const View& v, const Frontier&, const Edge& e, Slot s, std::vector<Transition>& out) {
    const auto& entry = dep.semantics().contexts()[s.context];
    if (entry.iteration != 0) dep.unfired(v, {e.src, entry.previous}, out);
  }
};

// Exit.
struct Exit : OpRule {
  static constexpr bool kChooses = true;
  static constexpr bool kNeedsRecord = true;
  static constexpr bool kOncePerInstance = true;
  static std::uint32_t moves(const Program&, NodeId) { return kMovesFirstInput; }

  // C-EXIT: back to the parent context.
  static ContextId out_context(const Semantics& sem, NodeId, ContextId c) { return sem.contexts()[c].parent; }
  // An Exit fires once per frame instance (C-ONCE): recorded in the parent context it delivers to.
  static ContextId record_context(const Contexts& contexts, Transition t) { return contexts[t.context].parent; }

  // Exit x's input in context c is dead: everything is there, and its data or a
  // control input is DEAD.
  template <class View>
  static bool input_dead(const Semantics& sem, const View& v, NodeId x, ContextId c) {
    const auto& node = sem.program().node(x);
    const auto data = v.holds(sem.in_slot(node.in[0], c));
    if (data == Holds::empty) return false;
    bool dead = data == Holds::dead;
    for (auto d : node.control_in) {
      const auto h = v.holds(sem.in_slot(d, c));
      if (h == Holds::empty) return false;
      dead = dead || h == Holds::dead;
    }
    return dead;
  }
  // C-EXIT: a live value and no DEAD control input; a dead one waits for
  // C-EXIT-DEAD, which the frontier enables once the frame instance is complete.
  template <class View>
  static bool ready(const Semantics& sem, const View& v, Transition t) {
    return v.holds(sem.in_slot(sem.program().node(t.node).in[0], t.context)) == Holds::live &&
           !input_dead(sem, v, t.node, t.context);
  }
  static Successors fire(Firing& f, bool dead_control) {
    if (holds(f.input(f.node.in[0])) == Holds::live && !dead_control) return pass_on(f);
    return fire_dead_delivery(f);
  }
  // C-EXIT-DEAD: "dead Exits count only in the final iteration": once its frame
  // instance is complete, an Exit whose input in the last iteration is DEAD puts
  // DEAD in the parent context (a loop in an untaken branch).
  static Successors fire_dead_delivery(Firing& f) {
    f.consume(f.node.in[0]);
    f.emit(f.next, f.node.out[0], Dead{});
    f.control_out(Dead{});
    return f.one();
  }

  static std::string why_empty(const Semantics& sem, const State&, const Edge& e, Slot) {
    return " (Exit '" + std::string(sem.program().node(e.src).name()) + "' has not delivered)";
  }
  static std::string why_fired(const Semantics& sem, Transition t) {
    return "it has already delivered a value" + in_context_text(sem, record_context(sem.contexts(), t));
  }
  static std::optional<Blocker> why_blocked(const Semantics& sem, Transition t) {
    const auto& node = sem.program().node(t.node);
    return Blocker{node.in[0], "its input is DEAD: a dead Exit delivers DEAD once loop '" +
                                   sem.program().frame(node.frame).name +
                                   "' is complete, from its last iteration (C-EXIT-DEAD)"};
  }
  // C-EXIT-TWICE: a live value left for an Exit that has delivered one.
  static void violations(const Semantics& sem, const State& s, Transition t, std::vector<Violation>& out) {
    const auto in = sem.program().node(t.node).in[0];
    for (const auto& [slot, c] : s.in_transit)
      if (slot.edge == in && tfsem::holds(c) == Holds::live && sem.contexts()[slot.context].parent == t.context)
        out.push_back({Violation::Kind::exit_twice, {t.node, slot.context}, slot.edge});
  }

  // Some iteration of the instance below s's context delivers.
  template <class Dep, class View>
  static void producers(const Dep& dep, const View& v, const Frontier& f, const Edge& e, Slot s, std::vector<Transition>& out) {
    dep.pending_within(v, f, s.context, dep.semantics().program().node(e.src).frame, out);
  }
  // One delivery per frame instance (C-ONCE): its other iterations compete.
  template <class Dep, class View>
  static void conflicts(const Dep& dep, const View& v, const Frontier& f, Transition t, std::vector<Transition>& out) {
    const auto& e = dep.semantics().contexts()[t.context];
    if (const auto* inst = f.instance(e.parent, e.frame))
      for (auto c : inst->iterations)
        if (c != t.context) out.push_back({t.node, c});
    dep.creators(v, f, e.frame, out);
  }
  // A dead Exit delivers once its frame instance completes, from its last iteration.
  template <class Dep, class View>
  static void necessary(const Dep& dep, const View& v, const Frontier& f, Transition t, std::vector<Transition>& out) {
    const auto& sem = dep.semantics();
    const auto s = sem.in_slot(sem.program().node(t.node).in[0], t.context);
    if (v.holds(s) == Holds::empty) return dep.producers(v, f, s, out);
    const auto& e = sem.contexts()[t.context];
    const auto* inst = f.instance(e.parent, e.frame);
    if (inst != nullptr && inst->iterations.back() == t.context) dep.finish(v, f, *inst, out);
  }
  // A live Exit competes with its other iterations; a dead one comes last.
  template <class View>
  static bool eager(const Semantics& sem, const View& v, Transition t) {
    return input_dead(sem, v, t.node, t.context);
  }
};

}  // namespace tfsem::rules
