// Steps (section 3.2.1): "each change of state in the behavior is caused by the
// execution (i.e., the firing) of exactly one node in the graph." With control
// flow (section 4; thesis section 3.2) a step fires a node in an execution
// context, a Transition, and "each node fires at most once in each execution
// context" (C-ONCE).
//
// Glossary: s is the state before a step and s' the one after; t = (n, c) a
// transition, n a node, c a context; d an incoming edge, e an outgoing edge;
// x a variable; v, w tensors; F a frame, P its parallel_iterations.
// Every rule carries the id it has in specs/semantics.md; an operation's
// rules are one arm of the table in rules/ (rules/op_rule.hpp).
#pragma once

#include "semantics/frontier.hpp"
#include "semantics/program.hpp"
#include "semantics/state.hpp"

#include <boost/container/small_vector.hpp>

#include <algorithm>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace tfsem {

struct Options {
  TermOptions terms{};  // normalize symbolic terms modulo the declared laws
};

// Why a transition is not enabled: one reason, with the slot it concerns if any.
struct Blocker {
  EdgeId edge;  // invalid when the reason is not an EMPTY edge
  std::string reason;
};

// A transition that should have fired in a terminal state, with what it waits for.
struct StuckNode {
  Transition transition;
  std::vector<Blocker> waiting_on;
};

// A defect of the graph that a behaviour exposes (C-VIOLATION): a second live
// value for a Merge or an Exit, which TensorFlow would silently drop or race on.
struct Violation {
  enum class Kind : std::uint8_t { merge_two_live, exit_twice };
  Kind kind;
  Transition at;  // the Merge, or the Exit in the iteration holding the extra value
  EdgeId edge;    // the input holding it
};
std::string_view violation_name(Violation::Kind k);

class Semantics;
// " in context while:3", or "" for the root context.
std::string in_context_text(const Semantics& sem, ContextId c);

// Which variable a node reads or updates (Read, Assign-f, a dereferencing
// function): what makes two firings race, and the explorer's independence data.
struct Access {
  enum class Kind : std::uint8_t { none, read, update };
  Kind kind = Kind::none;
  VarId var{};
};

// Every s' a firing can lead to: one, unless it is a relation (footnote 2).
using Successors = boost::container::small_vector<State, 1>;

class Dependence;

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

class Semantics {
 public:
  explicit Semantics(std::shared_ptr<const Program> program, Options options = {});

  [[nodiscard]] const Program& program() const { return *program_; }
  [[nodiscard]] const std::shared_ptr<const Program>& program_ptr() const { return program_; }
  [[nodiscard]] const Options& options() const { return options_; }
  // The execution contexts met so far (interned; shared by every state of this Semantics).
  [[nodiscard]] const Contexts& contexts() const { return *contexts_; }

  // S-INIT: input edges hold their initial contents, every other edge is EMPTY,
  // VarValue holds each variable's declared initial value, and nothing has fired.
  [[nodiscard]] State initial() const;
  // S-SESSION: the next run of the same graph: VarValue persists, InTransit is
  // the initial one again (inputs are fed anew).
  [[nodiscard]] State next_run(const State& end_of_run) const;

  // ---- Where a transition's tokens are (C-SLOT). ----
  // The slot input edge d of a transition in context c reads: c; for a loop
  // invariant (C-ENTER-CONST) iteration 0 of c's frame instance; for a
  // Return's data (C-RETURN) the context of the call its site made from c.
  [[nodiscard]] Slot in_slot(EdgeId d, ContextId c) const {
    switch (in_slot_[d.index()]) {
      case InSlot::same: break;
      case InSlot::first_iteration: return {d, (*contexts_)[c].first};
      case InSlot::callee: return {d, contexts_->call(c, program_->edge(d).frame, site_[program_->edge(d).dst.index()])};
    }
    return {d, c};
  }
  // The context of the tokens n puts on its outgoing data edges when it fires in c.
  [[nodiscard]] ContextId out_context(NodeId n, ContextId c) const;
  // The slot of outgoing edge e when its source fires in c: out_context, but a
  // Call's control edges stay in c (C-CALL), for the Return of its site.
  [[nodiscard]] Slot out_slot(EdgeId e, ContextId c) const { return out_slot(e, c, out_context(program_->edge(e).src, c)); }
  // The same, given out = out_context(e's source, c), for a caller that
  // looks at each out-edge of one transition.
  [[nodiscard]] Slot out_slot(EdgeId e, ContextId c, ContextId out) const {
    const auto& edge = program_->edge(e);
    return {e, edge.kind == EdgeKind::control && control_stays_[edge.src.index()] ? c : out};
  }
  // Where "t has fired" is recorded (C-ONCE): t's context, or for an Exit, the
  // parent context it delivers to (an Exit fires once per frame instance).
  [[nodiscard]] ContextId record_context(Transition t) const;

  // ---- C-ENABLED over any representation of the state (frontier.hpp). ----
  template <class View>
  void frontier(const View& v, Frontier& out) const;
  // C-ENABLED for t but C-BOUND: enabled if t's context is started, as the
  // root context always is.
  template <class View>
  [[nodiscard]] bool locally_enabled(const View& v, Transition t) const;

  // ---- On states. ----
  [[nodiscard]] Frontier frontier(const State& s) const;
  [[nodiscard]] bool enabled(const State& s, Transition t) const;
  [[nodiscard]] std::vector<Transition> enabled_transitions(const State& s) const { return frontier(s).enabled; }
  [[nodiscard]] std::vector<Blocker> why_not_enabled(const State& s, Transition t) const;
  // The states s' that firing t in s can cause, without the contexts that
  // leave them (C-FINISHED). Precondition: enabled(s, t).
  [[nodiscard]] Successors fire(const State& s, Transition t) const;
  // The rule of t's operation alone: s' with every context s had (S-FRAME
  // holds: only t's slots, t's record and VarValue(x) change). Precondition:
  // t is enabled in s, which is not checked: s may hold t's inputs alone.
  [[nodiscard]] Successors apply(const State& s, Transition t) const;

  // ---- C-FINISHED (finished_impl.hpp). ----
  // The contexts a firing of t may let go (its own, those of its inputs and
  // outputs), into out.
  void touched(Transition t, std::vector<ContextId>& out) const;
  // Whether a live token on d keeps its context in the state: d is no loop
  // invariant, a node takes it, and that node is no Return (whose results
  // for the other call sites stay behind). A firing that leaves such a token
  // in its own context lets nothing of that context go.
  [[nodiscard]] bool keeps_context(EdgeId d) const;
  // Calls leave(c) for each context among `work`, and each that their
  // departure lets go, that no token can reach any more, in turn, with v
  // seeing each departure. Empties work.
  template <class View, class Leave>
  void finished(const View& v, std::vector<ContextId>& work, Leave&& leave) const;
  // S-TERMINAL: no transition is enabled.
  [[nodiscard]] bool terminal(const State& s) const { return enabled_transitions(s).empty(); }
  // S-STUCK: in terminal state s, the transitions that never fired in a
  // context that exists (every node fires once in each context of its frame).
  [[nodiscard]] std::vector<StuckNode> stuck(const State& s) const;
  // C-VIOLATION: the defects terminal state s exposes.
  [[nodiscard]] std::vector<Violation> violations(const State& s) const;

  // ---- Static facts. ----
  [[nodiscard]] Access access(NodeId n) const { return access_[n.index()]; }
  // A Call's or Return's call site (the element Call appends to the tag).
  [[nodiscard]] std::uint32_t site(NodeId n) const { return site_[n.index()]; }
  // Whether n's firing reads and extends the path condition (a Switch,
  // S-PATH): its number of results depends on its predicate's value, which
  // no View shows.
  [[nodiscard]] bool branches(NodeId n) const { return branches_[n.index()]; }
  // Whether some node does: then states may carry a path condition.
  [[nodiscard]] bool branching() const { return std::find(branches_.begin(), branches_.end(), true) != branches_.end(); }
  // The tensors n's firing moves without inspecting them (S-MOVE; bits as
  // OpRule::moves: data input i, kMovesVar).
  [[nodiscard]] std::uint32_t moves(NodeId n) const { return moves_[n.index()]; }
  // Whether n's firing on tensors writes evaluate(n, args), leaves an
  // argument it does not consume where it was, and writes nothing else that
  // depends on them (S-EVAL, OpRule::evaluates).
  [[nodiscard]] bool evaluates(NodeId n) const { return evaluates_[n.index()]; }
  // S-FN-3: the results f(args) of function node n (not a relation), the
  // j-th for its j-th data out-edge.
  [[nodiscard]] Tuple evaluate(NodeId n, std::span<const Tensor> args) const;
  // Whether n is a loop's Merge: one with a NextIteration input.
  [[nodiscard]] bool loop_merge(NodeId n) const { return loop_merge_[n.index()]; }
  // What partial-order reduction reads (dependence.hpp), built on first use.
  [[nodiscard]] const Dependence& dependence() const;

 private:
  std::shared_ptr<const Program> program_;
  Options options_;
  std::shared_ptr<Contexts> contexts_ = std::make_shared<Contexts>();
  std::vector<Access> access_;                     // by node
  std::vector<bool> loop_merge_;                   // by node: a Merge with a NextIteration input
  enum class InSlot : std::uint8_t { same, first_iteration, callee };
  std::vector<InSlot> in_slot_;                    // by edge: how in_slot finds its context
  std::vector<std::uint32_t> site_;                // by node: a Call's or Return's call site
  std::vector<bool> control_stays_;                // by node: its control out-edges stay in its context (a Call)
  std::vector<bool> branches_;                     // by node: reads and extends the path condition (a Switch)
  std::vector<std::uint32_t> moves_;               // by node: what its firing moves (S-MOVE)
  std::vector<bool> evaluates_;                    // by node: its firing evaluates f alone (S-EVAL)
  // By node: whether its fired record, not its inputs, tells that it fired. A
  // node that consumes every input it needs cannot find them again in that
  // context (each slot is filled once), so only a Merge, an Exit, and a node
  // fed by loop invariants alone need the record to stay disabled.
  std::vector<bool> needs_record_;
  struct DependenceOnce;
  std::shared_ptr<DependenceOnce> dependence_;

  template <class View>
  void visit(const View& v, ContextId c, bool started, Frontier& out) const;
  // Every node recorded in c has fired, nothing is nested in c, and c holds
  // no token a transition could still take (finished_impl.hpp).
  template <class View>
  [[nodiscard]] bool quiet(const View& v, ContextId c) const;
  // Whether no transition can take the token (h) in slot (d, c) any more.
  template <class View>
  [[nodiscard]] bool unreachable(const View& v, EdgeId d, ContextId c, Holds h) const;
};

}  // namespace tfsem

#include "semantics/frontier_impl.hpp"
#include "semantics/finished_impl.hpp"
