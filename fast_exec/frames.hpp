// The executor's run-time state for control flow, as TensorFlow's executor
// keeps it (Yu et al., EuroSys 2018, section 4.1): a frame instance per loop
// entered and per call made (the root context is an instance too), holding the
// state of each of its iterations in flight: per node the inputs it still
// waits for, per data edge into it an input slot, and the frame instances the
// iteration has started. An instance's lock guards all of this (taken only
// when the session has more than one thread); kernels run
// outside it. Iteration states and instances come from per-frame pools that
// keep them between iterations and runs, so an iteration allocates nothing
// once the pools are warm. Private to fast_exec.
#pragma once

#include "fast_exec/compiled.hpp"
#include "fast_exec/session.hpp"

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <vector>

namespace tfsem::fast_exec {

struct Instance;

// An instance's or a pool's lock, taken only when the session runs on more
// than one thread: with one, the thread that fires owns every instance.
class Guard {
 public:
  Guard(std::mutex& m, bool shared) : m_(shared ? &m : nullptr) {
    if (m_ != nullptr) m_->lock();
  }
  ~Guard() {
    if (m_ != nullptr) m_->unlock();
  }
  Guard(const Guard&) = delete;
  Guard& operator=(const Guard&) = delete;

 private:
  std::mutex* m_;
};

// Per node, in IterState::flags.
enum IterFlag : std::uint8_t {
  kFired = 1,        // a Merge that has fired (a later token for it is dropped)
  kDeadControl = 2,  // a control input was DEAD
  kDeadExit = 4,     // an Exit whose input was DEAD (C-EXIT-DEAD looks at the last iteration's)
  kDeadCall = 8,     // a Return told by its Call that no call was made: it needs no result
  kDeadInput = 16,   // a data input was DEAD (C-DEAD)
  kHeldInput = 32,   // a data input holds a payload of its own (Slot::owns), which a DEAD firing lets go
};

struct IterState {
  Instance* inst = nullptr;
  std::uint32_t iteration = 0;  // a call's instance has iteration 0 only
  std::int32_t outstanding_ops = 0;     // its nodes ready or firing
  std::int32_t outstanding_frames = 0;  // frame instances it started that are not complete
  std::uint32_t fired = 0;              // its nodes that have fired (S-STUCK: each of them, once)
  std::vector<std::int32_t> pending;    // by local node: incoming edges not yet filled
  // By local node, for a Merge: >= 0, the expected data inputs not yet DEAD;
  // < 0, a live input arrived on port -aux - 1.
  std::vector<std::int32_t> aux;
  std::vector<std::uint8_t> flags;  // by local node: IterFlag
  std::vector<Slot> slots;          // input slots
  std::vector<Instance*> children;  // by child slot
  // By child slot, for a call site without an instance: its Calls that were
  // DEAD. When all are, no call is made and no instance is ever started.
  std::vector<std::int32_t> dead_calls;
};

struct Instance {
  Session::Run* run = nullptr;
  std::uint32_t frame = 0;
  IterState* parent = nullptr;  // the iteration that started it; null for the root
  std::uint32_t depth = 0;      // its ancestors: 0 for the root
  std::uint32_t child = 0;      // its slot in parent->children
  std::uint32_t site = 0;       // a call's site
  std::mutex lock;
  std::int32_t pending_inputs = 0;  // Enters (a loop) or Calls (a call) still to come
  std::uint32_t iterations = 0;     // created
  std::uint32_t done = 0;           // the leading iterations that are done (C-DONE)
  std::uint32_t first = 0;          // the oldest iteration not yet given back
  std::vector<IterState*> ring;     // iteration i at i & (size - 1); the size a power of two
  std::vector<std::pair<std::uint32_t, Slot>> invariants;  // (out index, value): every iteration's (C-ENTER-CONST)
  std::vector<std::pair<std::uint32_t, Slot>> deferred;    // tokens for the next iteration, not yet started (C-BOUND)
  std::vector<std::uint8_t> exit_fired;                    // by Exit: delivered (C-ONCE)
  IterState* at(std::uint32_t i) const { return ring[i & (ring.size() - 1)]; }
};

// Iteration states and instances of each static frame, kept for reuse. With
// Calls::dynamic, a call's instance and its state are instead made afresh from
// the function's compiled body at each call and freed when it returns, as
// TensorFlow r1.4's function runtime makes an executor state per call.
class FramePools {
 public:
  FramePools(const CompiledGraph& g, Calls calls, bool shared);
  FramePools(const FramePools&) = delete;
  FramePools& operator=(const FramePools&) = delete;
  // An iteration state of frame f, every node waiting for all of its inputs.
  IterState* iteration(std::uint32_t f);
  void give_back(std::uint32_t f, IterState* it);  // its slots emptied, its children null
  Instance* instance(std::uint32_t f);
  void give_back(Instance* inst);
  [[nodiscard]] std::size_t instances_held(std::uint32_t f) const;  // the most alive at once

 private:
  struct Pool {
    std::mutex lock;
    std::vector<IterState*> iterations;  // free
    std::vector<Instance*> instances;    // free
    std::vector<std::unique_ptr<IterState>> owned_iterations;
    std::vector<std::unique_ptr<Instance>> owned_instances;
  };
  const CompiledGraph& graph_;
  std::vector<std::unique_ptr<Pool>> pools_;  // by frame
  Calls calls_;
  bool shared_;  // taken from by more than one thread
  [[nodiscard]] bool fresh(std::uint32_t f) const {
    return calls_ == Calls::dynamic && graph_.frames[f].kind == Frame::Kind::function;
  }
  IterState* make_iteration(std::uint32_t f) const;
  Instance* make_instance(std::uint32_t f) const;
  template <class T, class Make>
  T* take(std::uint32_t f, std::vector<T*> Pool::*free, std::vector<std::unique_ptr<T>> Pool::*owned, Make make);
};

// A node to fire in an iteration.
struct Task {
  IterState* it = nullptr;
  std::uint32_t node = 0;
  // The nodes fired on the inline fast path that handed their operation on to
  // this one; it counts them as fired (IterState::fired) when it routes under
  // the lock. Such a task is the only one its firing makes ready, so it runs
  // next on the same thread and never goes to the pool.
  std::uint32_t inlined = 0;
};

// The state of one run: the root instance, the fetched outputs, completion.
struct Session::Run {
  Session* session = nullptr;
  Instance* root = nullptr;
  // By fetch index: the outputs on the host, as contents, so that the result
  // takes them whole; an output on the accelerator waits in on_device, and
  // finish downloads it. It is the caller's result's, whose last outputs stay
  // until this run's overwrite them.
  std::vector<Content> fetched;
  // By fetch index: whether this run fetched it (1), or the result still
  // holds an earlier run's, which finish empties.
  std::vector<std::uint8_t> fetched_now;
  std::vector<std::pair<std::uint32_t, Slot>> on_device;
  std::mutex trace_lock;  // choices and on_device
  std::vector<Fired> choices;
  std::vector<std::uint32_t> forced;  // run_schedule: the result each relation must pick
  std::atomic<std::uint64_t> uploads{0}, downloads{0};
  // The run is over when nothing is left to fire: the pool's tasks, and
  // run()'s own share, counted in `active`; the last one sets `quiet`.
  std::atomic<std::int64_t> active{0};
  std::mutex done_lock;
  std::condition_variable done;
  bool quiet = false;
  bool finished = false;              // the root instance completed
  std::atomic<bool> stuck_iteration{false};  // an iteration was done with a node that never fired
  std::uint64_t seed = 0;
  bool perturb = false;
  bool shared = false;  // fired on more than one thread: instances are locked
  bool at_once = true;  // firings at once (AtOnce); off for run_schedule, which names each step
};

// By node, which firings run at once where the last token a node waits for
// arrives (Session::fire_at_once), rather than as a queued task, as
// TensorFlow's executor runs an inexpensive kernel inline. Each is one of the
// schedules the semantics allows (the node is enabled) and has no side effect.
// It runs under the lock of the instance that received the token, and a
// result for a caller's Return takes the caller's lock inside it: instance
// locks nest only from callee to caller, never the other way.
enum AtOnce : std::uint8_t {
  kWhenDead = 1,   // C-DEAD: DEAD on every output (not a Merge, Enter, Exit or NextIteration, which have their own);
                   // C-CALL-DEAD for a Call whose site has no instance: DEAD on its control outputs
  kForwarder = 2,  // live too: Identity, Copy, LoopCond, RefIdentity or Return (C-RETURN) with one data input
                   // (S-FUNCTION, f the identity): its token on every data output, GO on every control output
  kMerge = 4,      // a Merge (C-MERGE, C-MERGE-DEAD): always at once
  kConstant = 8,   // live too: a constant on the host (S-FUNCTION, f of no arguments): its tokens, copied
  kScalar = 16,    // live too when the arguments are scalars: a binary function on the host with a scalar
                   // kernel (S-FUNCTION), or a Switch whose predicate is a boolean (C-SWITCH)
  kCall = 32,      // live too on one thread (no locks), when it is not the last of its site's Calls to come
                   // (C-CALL): its argument into the callee's instance, which cannot complete before that last one
};
std::vector<std::uint8_t> at_once_firings(const CompiledGraph& g, const std::vector<bool>& on_accelerator);

// What a live firing at once, or a Merge's, sends: on data output j,
// token(j); on each control output, GO, or DEAD when the Merge is dead.
struct Session::Sent {
  enum Shape : std::uint8_t { every, merge, one, constant };
  Shape shape = every;
  bool dead = false;
  Slot v;                           // every: on each data output; merge: on 0; one: on output k alone
  std::uint32_t k = 0;              // merge: the live input, on output 1; one: the output v goes to
  const Slot* constants = nullptr;  // constant: output j's token
  // Moves v out to the last output that carries it.
  Slot token(std::uint32_t j, std::uint32_t data_outputs) {
    if (j >= data_outputs || dead) return dead ? Slot(Dead{}) : Slot(Go{});
    switch (shape) {
      case merge: return j == 0 ? std::move(v) : Slot(Scalar::of(static_cast<std::int32_t>(k)));
      case one: return j == k ? std::move(v) : Slot(Dead{});
      case constant: return constants[j];
      case every: break;
    }
    return j + 1 < data_outputs ? Slot(v) : std::move(v);
  }
};

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

// The context an iteration is, outermost first (ExecContext).
ExecContext context_of(const CompiledGraph& g, const IterState* it);

}  // namespace tfsem::fast_exec
