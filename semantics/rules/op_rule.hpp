// The arm of one operation's rules (as the WebAssembly reference interpreter
// keeps one arm per instruction): a struct of static hooks per op kind,
// grouped by family in this folder (dataflow.hpp: functions and variables;
// cond.hpp: Switch and Merge; loop.hpp: Enter, Exit, NextIteration; call.hpp:
// Call and Return; rendezvous.hpp: Send and Recv), and found through the one
// table by op kind (table.hpp).
// OpRule holds each hook's default; an arm hides the ones its rules change.
// An arm is stateless: everything it reads comes from the Semantics, the
// state (or any View of it, frontier.hpp) and the transition. Part of
// semantics.hpp, which includes the table after the Semantics class.
#pragma once

#include "semantics/firing.hpp"

#include <optional>
#include <string>
#include <vector>

namespace tfsem {

// OpRule::moves: bit i for data input i (i < 31), and VarValue(x).
inline constexpr std::uint32_t kMovesFirstInput = 1, kMovesVar = 1U << 31;

struct OpRule {
  // ---- Static facts, read once when the Semantics is built. ----
  // The variable n reads or updates (the explorer's independence data).
  static Access access(const Program&, NodeId) { return {}; }
  // A value arriving on an input can change what it does, not only whether
  // it can fire (Merge, Exit): the reductions order its producers.
  static constexpr bool kChooses = false;
  // Its fired record, not its inputs, keeps it from firing again in a
  // context (C-ONCE): nodes that may fire with inputs left on their edges.
  static constexpr bool kNeedsRecord = false;
  // It fires only once every data input is there; a Merge needs one (C-MERGE).
  static constexpr bool kNeedsEveryInput = true;
  // It fires once per frame instance rather than once per context (Exit).
  static constexpr bool kOncePerInstance = false;
  // Its data input lives in the context of the call its site made (Return).
  static constexpr bool kReadsCallee = false;
  // Its control out-edges stay in its own context, whatever out_context says (Call).
  static constexpr bool kControlStays = false;
  // The call site it belongs to (Call, Return); 0 for the others.
  static std::uint32_t site(const Node&) { return 0; }
  // Its firing reads and extends the path condition (S-PATH), so its number
  // of results depends on the value of its predicate (Switch).
  static constexpr bool kBranches = false;
  // Whether firing it may set VarValue(x) without looking at the old value (Assign-f).
  static bool may_overwrite(const Op&) { return false; }
  // S-MOVE: the tensors its firing moves without inspecting them (bit i: data
  // input i; kMovesVar: VarValue(x)). Put any other tensor there and the
  // firing writes that one wherever it wrote this one, and nothing else
  // changes; the explorer keeps one effect for every such tensor.
  static std::uint32_t moves(const Program&, NodeId) { return 0; }
  // S-EVAL: with tensors on its data inputs, its firing writes the j-th
  // result of Semantics::evaluate(n, args) on its j-th data out-edge, leaves
  // an argument it does not consume (a loop invariant) where it was, and
  // nothing else it writes depends on those tensors; the explorer computes
  // one effect and evaluates f alone for every other argument.
  static bool evaluates(const Program&, NodeId) { return false; }

  // ---- Contexts (C-SLOT, C-ONCE). ----
  // The context of the tokens n puts on its data out-edges when it fires in c.
  static ContextId out_context(const Semantics&, NodeId, ContextId c) { return c; }
  // Where "t has fired" is recorded.
  static ContextId record_context(const Contexts&, Transition t) { return t.context; }

  // ---- C-ENABLED, beyond C-ONCE and S-CTRL-1 (which Semantics checks). ----
  // S-ENABLED: every incoming data edge holds its contents.
  template <class View>
  static bool ready(const Semantics& sem, const View& v, Transition t) {
    for (auto d : sem.program().node(t.node).in)
      if (v.holds(sem.in_slot(d, t.context)) == Holds::empty) return false;
    return true;
  }
  // Semantics::fire picks the arm's fire(Firing&, bool dead_control): every
  // arm defines its own.

  // ---- Explaining a state: S-STUCK, C-VIOLATION. ----
  // Why incoming edge e of a transition, in slot `slot`, is EMPTY, for an e
  // this node is the source of: "" or " (...)".
  static std::string why_empty(const Semantics& sem, const State& s, const Edge& e, Slot slot) {
    if (s.has_fired(e.src, slot.context)) return "";
    return " (node '" + std::string(sem.program().node(e.src).name()) + "' has not fired)";
  }
  // Whether t waits for its data input d (a Merge waits for some of its inputs only).
  static bool waits_for(const Semantics&, EdgeId, ContextId) { return true; }
  // Why t cannot fire again.
  static std::string why_fired(const Semantics& sem, Transition t) { return "it has already fired" + in_context_text(sem, t.context); }
  // Why t is not enabled although every input it waits for is there.
  static std::optional<Blocker> why_blocked(const Semantics&, Transition) { return std::nullopt; }
  // The defects fired transition t leaves in terminal state s.
  static void violations(const Semantics&, const State&, Transition, std::vector<Violation>&) {}

  // ---- Dependence (dependence.hpp): what partial-order reduction reads. ----
  // The transitions that could still fill slot s of an out-edge of this node.
  template <class Dep, class View>
  static void producers(const Dep& dep, const View& v, const Frontier&, const Edge& e, Slot s, std::vector<Transition>& out) {
    dep.unfired(v, {e.src, s.context}, out);
  }
  // For t enabled: what, fired first, could change what t does (beyond the
  // accesses to its variable, which Dependence adds).
  template <class Dep, class View>
  static void conflicts(const Dep&, const View&, const Frontier&, Transition, std::vector<Transition>&) {}
  // For t disabled, its context started and its control inputs there: a set
  // one of which fires in every behaviour in which t becomes enabled.
  template <class Dep, class View>
  static void necessary(const Dep& dep, const View& v, const Frontier& f, Transition t, std::vector<Transition>& out) {
    const auto& sem = dep.semantics();
    for (auto d : sem.program().node(t.node).in)
      if (const auto s = sem.in_slot(d, t.context); v.holds(s) == Holds::empty) return dep.producers(v, f, s, out);
  }
  // For t enabled, with one result, touching no variable or a race-free one
  // (Dependence::race_free): whether it may fire before anything else
  // without losing a behaviour. Reads only the holds of t's inputs, so that
  // it may be asked before t is known to be enabled.
  template <class View>
  static bool eager(const Semantics&, const View&, Transition) {
    return true;
  }
};

}  // namespace tfsem
