// Propagation, as TensorFlow's executor has it (its PropagatorState; Yu et
// al., EuroSys 2018, section 4.1): where each token a fired node sends goes,
// through frame instances and their iterations (fast_exec/instances.hpp);
// counting the inputs each node still waits for; deciding which nodes are
// ready; firing at once the inexpensive ones (AtOnce); starting, bounding and
// completing iterations and instances; and a run's fetched outputs. It runs no
// kernel on a device, touches no variable and owns no thread: the executor
// (fast_exec/executor.hpp) fires each task and hands its outputs to route.
// Private to fast_exec.
#pragma once

#include "fast_exec/compiled.hpp"
#include "fast_exec/executor.hpp"
#include "fast_exec/instances.hpp"
#include "fast_exec/token.hpp"

#include <atomic>
#include <cstdint>
#include <mutex>
#include <optional>
#include <span>
#include <vector>

namespace tfsem::fast_exec {

// A node to fire in an iteration.
struct Task {
  IterState* it = nullptr;
  std::uint32_t node = 0;
  // The nodes fired on the inline fast path that handed their operation on to
  // this one; it counts them as fired (IterState::fired) when it routes under
  // the lock. Such a task is the only one its firing makes ready, so it runs
  // next on the same thread and never goes on its stack.
  std::uint32_t inlined = 0;
};

// The tasks a firing makes ready (one fired next on the same thread, the
// others put on its worker's stack), and that worker, whose free lists the
// instance pools take from and give back to.
struct Ready : InlineVector<Task, 16> {
  std::uint32_t worker = 0;
};

// What propagation keeps of one run: the root instance, the fetched outputs,
// the trace, completion. The executor's run (Executor::Run) adds its own.
struct Propagation {
  Instance* root = nullptr;
  // By fetch index: the outputs on the host, as contents, so that the result
  // takes them whole; an output on the accelerator waits in on_device, and
  // the executor downloads it. It is the caller's result's, whose last
  // outputs stay until this run's overwrite them.
  std::vector<Content> fetched;
  // By fetch index: whether this run fetched it (1), or the result still
  // holds an earlier run's, which the executor empties.
  std::vector<std::uint8_t> fetched_now;
  std::vector<std::pair<std::uint32_t, Token>> on_device;
  std::mutex trace_lock;  // choices and on_device
  std::vector<Fired> choices;
  bool finished = false;              // the root instance completed
  std::atomic<bool> stuck_iteration{false};  // an iteration was done with a node that never fired
  // More than one worker busy: instances and pools are locked. The executor
  // sets it between firings (Executor::share); the propagator only reads it.
  bool shared = false;
  bool at_once = true;  // firings at once (AtOnce); off for run_schedule, which names each step
  // X-HALT: once set, the workers fire nothing more (Executor::work); the
  // first reason given is kept, under trace_lock.
  std::atomic<bool> halted{false};
  std::optional<Halt> halt;
  // Node n of iteration it of g halts the run, having got `value` (as text).
  void stop(Halt::Why why, std::uint32_t n, const CompiledGraph& g, const IterState* it, std::string value) {
    const std::lock_guard guard(trace_lock);
    halted.store(true, std::memory_order_relaxed);
    if (halt) return;
    const auto context = context_of(g, it);
    halt = Halt{why, NodeId(n), {context.begin(), context.end()}, std::move(value)};
  }
};

// By node, which firings run at once where the last token a node waits for
// arrives (Propagator::fire_at_once), rather than as a queued task, as
// TensorFlow's executor runs an inexpensive kernel inline. Each is one of the
// schedules the semantics allows (the node is enabled) and has no side effect.
// It runs under the lock of the instance that received the token, and a
// result for a caller's Return takes the caller's lock inside it: a worker
// waits for an instance lock only from callee to caller, never the other way
// (a Call at once takes its callee's only if it is free, SpinLock).
enum AtOnce : std::uint8_t {
  kWhenDead = 1,   // C-DEAD: DEAD on every output (not a Merge, Enter, Exit or NextIteration, which have their own);
                   // C-CALL-DEAD for a Call whose site has no instance: DEAD on its control outputs
  kForwarder = 2,  // live too: Identity, Copy, LoopCond, RefIdentity or Return (C-RETURN) with one data input
                   // (S-FN-1..3, f the identity): its token on every data output, GO on every control output
  kMerge = 4,      // a Merge (C-MERGE, C-MERGE-DEAD): always at once
  kConstant = 8,   // live too: a constant on the host (S-FN-1..3, f of no arguments): its tokens, copied
  kScalar = 16,    // live too when the arguments are scalars: a binary function on the host with a scalar
                   // kernel (S-FN-1..3), or a Switch whose predicate is a boolean (C-SWITCH)
  kCall = 32,      // live too when it is not the last of its site's Calls to come (C-CALL): its argument into the
                   // callee's instance, which cannot complete before that last one; while shared, only if the
                   // callee's lock is free (SpinLock::try_lock)
};
std::vector<std::uint8_t> at_once_firings(const CompiledGraph& g, const std::vector<bool>& on_accelerator);

// By node: the index among its outputs of the one edge to the inline
// successor it hands its operation to, or kNone. A node has one when it routes
// every token within its iteration (no Enter, Exit, NextIteration, Call, or
// result to a caller), every output but one leaves the graph, and that one
// goes to a node that waits for nothing else and fires as a task when live
// (not a Return, nor a node AtOnce fires live: a Merge, a forwarder, a host
// constant or a scalar function). Only the node fills that successor's state,
// so it does so without the instance's lock, and its outstanding operation
// passes to the successor.
std::vector<std::uint32_t> inline_successors(const CompiledGraph& g, const std::vector<std::uint8_t>& at_once);

// The propagation of one executor's runs, one run at a time: its tables
// (AtOnce, the inline successors) and its pools of frame instances. Each
// member that names an iteration or an instance runs under that instance's
// lock (Guard; taken inside where it says so).
class Propagator {
 public:
  // host_constants: CompiledGraph::constants as the tokens the executor sends
  // for them (by CompiledNode::constant - 1), which the executor keeps.
  Propagator(const CompiledGraph& g, const ExecOptions& options, const std::vector<bool>& on_accelerator,
             std::span<const Token> host_constants);
  Propagator(const Propagator&) = delete;
  Propagator& operator=(const Propagator&) = delete;

  // S-INIT: run's root instance with its one iteration, the input edges'
  // contents delivered; `ready` gets the nodes that can fire. run.fetched
  // holds the caller's result's buffers.
  void start(Propagation& run, bool at_once, Ready& ready);
  // C-DONE for the root before anything has fired: a graph where nothing can
  // fire is complete at once.
  void complete_at_start(Propagation& run, Ready& ready);
  // Routes t's data outputs and control value (C-SLOT), then counts t as done in its iteration.
  void route(Propagation& run, Task t, std::span<Token> data, Token control, Ready& ready);
  // A DEAD firing takes none of its inputs: the tensors among them (a large
  // one beside a DEAD token) are let go now, not when the iteration is given back.
  void drop_inputs(IterState& it, const CompiledNode& c) const {
    if ((it.flags[c.local] & kHeldInput) == 0) return;
    const auto* slot = graph_.in_slots.data() + c.in_begin;
    for (const auto* end = slot + c.in_count; slot != end; ++slot)
      if (auto& in = it.slots[*slot]; in.owns()) in = Token{};  // the others own nothing; overwritten on reuse
  }
  // After a stuck run: inst, its iterations and the instances they started, given back.
  void abandon(Instance* inst);
  // The most instances of frame f alive at once (Executor::instances_held).
  [[nodiscard]] std::size_t instances_held(std::uint32_t f) const { return pools_.instances_held(f); }

 private:
  const CompiledGraph& graph_;
  bool record_merges_;                      // ExecOptions::record_merges
  std::uint32_t max_iterations_, max_depth_;  // ExecOptions' (X-HALT)
  std::span<const Token> host_constants_;  // by CompiledNode::constant - 1
  std::vector<std::uint8_t> at_once_;       // by node: AtOnce (at_once_firings)
  std::vector<std::uint32_t> inline_next_;  // by node (inline_successors)
  InstancePools pools_;

  // Puts v on out edge o into iteration it; queues the destination when it is
  // ready, or fires it at once (fire_at_once) unless `nested` is past kNestedAtOnce.
  void deliver(IterState& it, const CompiledOut& o, Token&& v, Ready& ready, std::uint32_t nested = 0);
  // C-RETURN: v, a result of the call `callee` on edge o, to the Return of the
  // site that made the call, in the caller's iteration, under its lock (taken
  // inside the callee's where that is held: locks nest only upward). The edges
  // to the other sites' Returns carry nothing from this call.
  void return_to_caller(Propagation& run, const Instance& callee, const CompiledOut& o, Token&& v, Ready& ready,
                        std::uint32_t nested = 0);
  // Counts an operation outstanding in iteration it, and queues its node n as a task.
  void queue(IterState& it, std::uint32_t n, Ready& ready);
  // Puts v on out edge o into iteration it; whether its destination is now ready.
  bool arrive(IterState& it, const CompiledOut& o, Token&& v);
  bool arrive_at_merge(IterState& it, const CompiledOut& o, Token&& v);   // C-MERGE, C-MERGE-DEAD
  bool arrive_at_return(IterState& it, const CompiledOut& o, Token&& v);  // C-RETURN
  // Whether ready node n of iteration it fires at once (AtOnce), when the run
  // fires at once at all (Propagation::at_once).
  [[nodiscard]] bool fires_at_once(const IterState& it, std::uint32_t n) const;
  // Fires ready node n of iteration it at once, and the nodes its tokens make
  // ready that fire at once too; queues the others. `nested`: how many calls
  // and returns this chain of firings at once has gone through. A chain of
  // tail calls returns at once through kNestedAtOnce callers at most, then as
  // a task, and a chain of calls goes as deep, so that the C++ stack does not
  // grow with the recursion.
  void fire_at_once(IterState& it, std::uint32_t n, Ready& ready, std::uint32_t nested = 0);
  static constexpr std::uint32_t kNestedAtOnce = 16;
  // How many node ids ahead fire_at_once loads the record of (a chain in id order).
  static constexpr std::uint32_t kFireAhead = 32;
  // Whether live Call n of iteration it is the last of its site's Calls to
  // come: the one its callee's instance waits for last (C-CALL).
  [[nodiscard]] bool last_call(const IterState& it, std::uint32_t n) const;
  // C-CALL at once (kCall): Call n's argument into its callee's instance, made
  // if new; false, nothing done, when it has become its site's last Call,
  // which fires as a task (the callee may complete then), when the chain is
  // kNestedAtOnce deep, or when another worker holds the callee's lock.
  bool call_at_once(IterState& it, std::uint32_t n, Ready& ready, std::uint32_t nested);
  struct Sent;  // what a firing at once sends
  // The rule of ready node n of iteration it (a Merge, or no input DEAD), applied at once: what it sends;
  // false, nothing taken, when its kernel declines and it must fire as a task.
  bool apply_at_once(IterState& it, std::uint32_t n, Sent& sent);
  // X-HALT: whether node n of iteration it fires because a predicate was an
  // error: n is on a branch of a Switch of it whose predicate was an error
  // (one reached from n backward, within its frame, through no Merge, which
  // joins the branches), or, in a call made so (Instance::error_call), on
  // no branch of any Switch and behind nothing else that may pass DEAD on (a
  // Return, an Exit, a Recv, a Merge but an argument's), so that the call
  // fires n live whatever its arguments.
  [[nodiscard]] bool forced_by_error(const IterState& it, std::uint32_t n) const;
  // The instance that Enter or Call node n in iteration it starts, made if new;
  // null for a DEAD Call (live false) of a site that has no instance yet.
  Instance* child_of(IterState& it, std::uint32_t n, bool live, Ready& ready);
  // deliver; for a result, return_to_caller from the instance of iteration it
  // (a loop's Exit puts into its function's iteration); for an output edge,
  // its fetched contents.
  void put(Propagation& run, IterState& it, const CompiledOut& o, Token&& v, Ready& ready);
  // G-FETCH: v as fetched output k of the run.
  static void fetch(Propagation& run, std::uint32_t k, Token&& v);
  // The same for a Const's token, by reference: where the result holds that
  // tensor already (the last run's), nothing is copied and no count touched.
  static void fetch_constant(Propagation& run, std::uint32_t k, const Token& v);
  // Iteration i of inst, started: invariants delivered, sources queued.
  IterState* start_iteration(Instance& inst, std::uint32_t i, Ready& ready);
  // Marks the leading iterations done (C-DONE), starts a deferred one
  // (C-BOUND), gives back the done ones; whether inst is complete.
  bool advance(Instance& inst, Ready& ready);
  // A complete instance: its dead Exits deliver (C-EXIT-DEAD), its parent
  // iteration counts it done, and so on up; the root's completion ends the run.
  void complete(Propagation& run, Instance* inst, Ready& ready);
};

}  // namespace tfsem::fast_exec
