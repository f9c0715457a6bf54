// Steps (section 3.2.1): "each change of state in the behavior is caused by the
// execution (i.e., the firing) of exactly one node in the graph." With control
// flow (section 4; thesis section 3.2) a step fires a node in an execution
// context, a Transition, and "each node fires at most once in each execution
// context" (C-ONCE).
//
// Glossary: s is the state before a step and s' the one after; t = (n, c) a
// transition, n a node, c a context; d an incoming edge, e an outgoing edge;
// x a variable; v, w tensors; F a frame, P its parallel_iterations.
// Every rule carries the id it has in specs/semantics.md, and each rule is one
// function of rules.cpp.
#pragma once

#include "semantics/frontier.hpp"
#include "semantics/program.hpp"
#include "semantics/state.hpp"

#include <boost/container/small_vector.hpp>

#include <atomic>
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

// The independence data the explorer reads: which variable a node accesses.
struct Access {
  enum class Kind : std::uint8_t { none, read, update };
  Kind kind = Kind::none;
  VarId var{};
};

// The predicate of a Switch as a bool, or the error it is: a predicate is a
// bool scalar, and anything else is an error (V-ERROR). C-SWITCH's, and the
// executor's.
std::variant<bool, Tensor> switch_predicate(const Tensor& p);

// Every s' a firing can lead to: one, unless it is a relation (footnote 2).
using Successors = boost::container::small_vector<State, 1>;

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
  [[nodiscard]] Slot out_slot(EdgeId e, ContextId c) const {
    const auto& edge = program_->edge(e);
    return {e, edge.kind == EdgeKind::control && program_->node(edge.src).op.kind == OpKind::call ? c : out_context(edge.src, c)};
  }
  // Where "t has fired" is recorded (C-ONCE): t's context, or for an Exit, the
  // parent context it delivers to (an Exit fires once per frame instance).
  [[nodiscard]] ContextId record_context(Transition t) const {
    return program_->node(t.node).op.kind == OpKind::exit ? (*contexts_)[t.context].parent : t.context;
  }

  // ---- C-ENABLED over any representation of the state (frontier.hpp). ----
  template <class View>
  void frontier(const View& v, Frontier& out) const;
  // Which transitions may be enabled by the firings a stubborn set leaves
  // out, and what must fire before a disabled one can: the dependency data
  // partial-order reduction reads (frontier.hpp).
  template <class View>
  void conflicts(const View& v, const Frontier& f, Transition t, std::vector<Transition>& out) const;
  template <class View>
  void necessary(const View& v, const Frontier& f, Transition t, std::vector<Transition>& out) const;
  // Whether t, enabled, may fire before anything else without losing a
  // behaviour: it touches no variable, has one result, and no other firing
  // can change what it does.
  template <class View>
  [[nodiscard]] bool eager(const View& v, Transition t) const;
  // C-ENABLED for t but C-BOUND: enabled if t's context is started, as the
  // root context always is.
  template <class View>
  [[nodiscard]] bool locally_enabled(const View& v, Transition t) const;

  // ---- On states. ----
  [[nodiscard]] Frontier frontier(const State& s) const;
  [[nodiscard]] bool enabled(const State& s, Transition t) const;
  [[nodiscard]] std::vector<Transition> enabled_transitions(const State& s) const { return frontier(s).enabled; }
  [[nodiscard]] std::vector<Blocker> why_not_enabled(const State& s, Transition t) const;
  // The states s' that firing t in s can cause. Precondition: enabled(s, t).
  [[nodiscard]] Successors fire(const State& s, Transition t) const;
  // S-TERMINAL: no transition is enabled.
  [[nodiscard]] bool terminal(const State& s) const { return enabled_transitions(s).empty(); }
  // S-STUCK: in terminal state s, the transitions that never fired in a
  // context that exists (every node fires once in each context of its frame).
  [[nodiscard]] std::vector<StuckNode> stuck(const State& s) const;
  // C-VIOLATION: the defects terminal state s exposes.
  [[nodiscard]] std::vector<Violation> violations(const State& s) const;

  // ---- Static facts the explorer reads. ----
  [[nodiscard]] Access access(NodeId n) const { return access_[n.index()]; }
  // Whether firing n with tensor input v sets VarValue(x) without looking at
  // its old value: n may overwrite, and v is a tensor that is not an error
  // (S-ERR-ASSIGN) nor DEAD.
  [[nodiscard]] bool overwrites(NodeId n, const Content& v) const;
  // Whether n is an Assign-f with f deterministic and ignoring w (Write =
  // Assign-Snd): whether it overwrites depends on its input alone.
  [[nodiscard]] bool may_overwrite(NodeId n) const;
  // The Merges and Exits n's data edges feed: a value for them can change what they do.
  [[nodiscard]] const std::vector<NodeId>& delivers_to(NodeId n) const { return delivers_to_[n.index()]; }
  // Whether n's firing has one result whatever its inputs (not a relation,
  // S-NONDET); a Merge's result count depends on its inputs (C-MERGE).
  [[nodiscard]] bool deterministic(NodeId n) const;
  // Whether a fires before b in every behaviour in which b fires, for nodes of
  // the root frame: a must precede every input b needs (S-ENABLED), and a
  // Merge needs only one of its data inputs (C-MERGE).
  [[nodiscard]] bool precedes(NodeId a, NodeId b) const {
    const auto& rows = ancestors();
    return (rows[b.index()][a.index() / 64] >> (a.index() % 64) & 1U) != 0;
  }

 private:
  std::shared_ptr<const Program> program_;
  Options options_;
  std::shared_ptr<Contexts> contexts_ = std::make_shared<Contexts>();
  std::vector<Access> access_;                     // by node
  std::vector<std::vector<NodeId>> accessors_;     // by variable: its Read, Assign-f and dereferencing nodes
  std::vector<std::vector<FrameId>> touching_;     // by variable: the frames holding an accessor, and those whose
                                                   // contexts may enclose theirs
  std::vector<bool> loop_merge_;                   // by node: a Merge with a NextIteration input
  enum class InSlot : std::uint8_t { same, first_iteration, callee };
  std::vector<InSlot> in_slot_;                    // by edge: how in_slot finds its context
  std::vector<std::uint32_t> site_;                // by node: a Call's or Return's call site
  std::vector<std::vector<NodeId>> delivers_to_;   // by node: the Merges and Exits its data edges feed
  bool loops_ = false;                             // the program has loop frames
  // By node: whether its fired record, not its inputs, tells that it fired. A
  // node that consumes every input it needs cannot find them again in that
  // context (each slot is filled once), so only a Merge, an Exit, and a node
  // fed by loop invariants alone need the record to stay disabled.
  std::vector<bool> needs_record_;
  // Bit a of row b: a precedes b. Built on first use (n^2 bits), so that
  // large graphs that never ask pay nothing.
  struct Ancestors {
    std::once_flag once;
    std::atomic<bool> built{false};  // rows are built: no need to go through `once`
    std::vector<std::vector<std::uint64_t>> rows;
  };
  std::shared_ptr<Ancestors> ancestors_ = std::make_shared<Ancestors>();
  [[nodiscard]] const std::vector<std::vector<std::uint64_t>>& ancestors() const {
    if (!ancestors_->built.load(std::memory_order_acquire)) build_ancestors();
    return ancestors_->rows;
  }
  void build_ancestors() const;

  template <class View>
  [[nodiscard]] bool exit_input_dead(const View& v, NodeId x, ContextId c) const;
  template <class View>
  [[nodiscard]] bool expected(const View& v, EdgeId d, ContextId c) const;
  template <class View>
  void producers(const View& v, const Frontier& f, Slot slot, std::vector<Transition>& out) const;
  template <class View>
  void creators(const View& v, const Frontier& f, FrameId frame, std::vector<Transition>& out) const;
  template <class View>
  void pending_within(const View& v, const Frontier& f, ContextId parent, FrameId frame, std::vector<Transition>& out) const;
  template <class View>
  void visit(const View& v, ContextId c, bool started, Frontier& out) const;
};

}  // namespace tfsem

#include "semantics/frontier_impl.hpp"
