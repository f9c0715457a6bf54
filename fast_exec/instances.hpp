// The executor's run-time state for control flow, as TensorFlow's executor
// keeps it (Yu et al., EuroSys 2018, section 4.1): a frame instance per loop
// entered and per call made (the root context is an instance too), holding the
// state of each of its iterations in flight: per node the inputs it still
// waits for, per data edge into it an input slot, and the frame instances the
// iteration has started. An instance's lock guards all of this (taken only
// when the executor has more than one thread); kernels run outside it.
// Iteration states and instances come from per-frame pools that keep them
// between iterations and runs, so an iteration allocates nothing once the
// pools are warm. The propagator (fast_exec/propagator.hpp) moves tokens
// through them. Private to fast_exec.
#pragma once

#include "fast_exec/compiled.hpp"
#include "fast_exec/executor.hpp"
#include "fast_exec/token.hpp"

#include <boost/container/small_vector.hpp>

#include <atomic>
#include <cstddef>
#include <memory>
#include <mutex>
#include <span>
#include <vector>

namespace tfsem::fast_exec {

struct Instance;
struct Propagation;

// An instance's lock: held for a few counts and slots at a time, and rarely
// wanted by two workers at once (each fires its own calls), so a waiter spins
// rather than sleeps (yielding its core after a while). It knows the worker
// holding it, who may take it again: a Call fired at once takes its callee's
// lock inside its caller's (try_lock, never waiting: locks are waited for
// only from callee to caller), and a result the callee returns at once takes
// the caller's lock again.
class SpinLock {
 public:
  void lock(std::uint32_t worker) {
    if (!again(worker))
      while (!claim(worker)) wait();
  }
  bool try_lock(std::uint32_t worker) { return again(worker) || claim(worker); }
  void unlock() {
    if (--depth_ == 0) holder_.store(kFree, std::memory_order_release);
  }

 private:
  static constexpr std::uint32_t kFree = UINT32_MAX;
  std::atomic<std::uint32_t> holder_{kFree};
  std::uint32_t depth_ = 0;  // the holder's takes not yet given back
  // Whether `worker` holds it already (only it writes its own id there): then taken once more.
  bool again(std::uint32_t worker) {
    if (holder_.load(std::memory_order_relaxed) != worker) return false;
    ++depth_;
    return true;
  }
  bool claim(std::uint32_t worker) {
    auto free = kFree;
    if (holder_.load(std::memory_order_relaxed) != kFree ||
        !holder_.compare_exchange_strong(free, worker, std::memory_order_acquire, std::memory_order_relaxed))
      return false;
    depth_ = 1;
    return true;
  }
  void wait() const;  // until it looks free
};

// An instance's lock, taken by `worker` only while more than one worker is
// busy (Propagation::shared): a worker alone owns every instance.
class Guard {
 public:
  Guard(SpinLock& m, bool shared, std::uint32_t worker) : m_(shared ? &m : nullptr) {
    if (m_ != nullptr) m_->lock(worker);
  }
  ~Guard() {
    if (m_ != nullptr) m_->unlock();
  }
  Guard(const Guard&) = delete;
  Guard& operator=(const Guard&) = delete;

 private:
  SpinLock* m_;
};

// Per node, in IterState::flags.
enum IterFlag : std::uint8_t {
  kFired = 1,        // a Merge that has fired (a later token for it is dropped)
  kDeadControl = 2,  // a control input was DEAD
  kDeadExit = 4,     // an Exit whose input was DEAD (C-EXIT-DEAD looks at the last iteration's)
  kDeadCall = 8,     // a Return told by its Call that no call was made: it needs no result
  kDeadInput = 16,   // a data input was DEAD (C-DEAD)
  kHeldInput = 32,   // a data input holds a payload of its own (Token::owns), which a DEAD firing lets go
  kErrorPredicate = 64,  // a Switch whose predicate was an error, which went down both branches (X-HALT)
};

// Blocks of whole pairs of cache lines, carved from large aligned chunks and
// freed all together: what one worker writes of an iteration or an instance
// never shares a line with what another writes, which the other worker's
// core would take from it at each write (false sharing). Pairs, because x86
// cores fetch the adjacent line of a pair along with the one they miss.
class LineArena {
 public:
  LineArena() = default;
  LineArena(const LineArena&) = delete;
  LineArena& operator=(const LineArena&) = delete;
  ~LineArena();
  void* take(std::size_t bytes);

 private:
  static constexpr std::size_t kLine = 128, kChunk = std::size_t{1} << 16;
  std::vector<std::pair<std::byte*, std::size_t>> chunks_;  // each start and size
  std::size_t used_ = 0;                                     // of the last chunk
};

// The state of one iteration, its arrays in one block with it.
struct IterState {
  Instance* inst = nullptr;
  std::uint32_t iteration = 0;  // a call's instance has iteration 0 only
  std::int32_t outstanding_ops = 0;     // its nodes ready or firing
  std::int32_t outstanding_frames = 0;  // frame instances it started that are not complete
  std::uint32_t fired = 0;              // its nodes that have fired (S-STUCK: each of them, once)
  // A Switch of it got an error predicate, which goes down both branches: a
  // loop or a recursion goes on with it (X-HALT). Its Switches may fire on several workers.
  std::atomic<bool> error_predicate{false};
  std::span<Token> slots;               // input slots
  std::span<Instance*> children;        // by child slot
  std::span<std::int32_t> pending;      // by local node: incoming edges not yet filled
  // By local node, for a Merge: >= 0, the expected data inputs not yet DEAD;
  // < 0, a live input arrived on port -aux - 1.
  std::span<std::int32_t> aux;
  // By child slot, for a call site without an instance: its Calls that were
  // DEAD. When all are, no call is made and no instance is ever started.
  std::span<std::int32_t> dead_calls;
  std::span<std::uint8_t> flags;  // by local node: IterFlag

  // One for frame cf, in the arena's lines (null: allocated on its own, as
  // a dynamic call's is): every slot EMPTY, every child null, every count 0.
  static IterState* make(const CompiledFrame& cf, LineArena* arena);
  // Ends it, its tokens let go; its block is left to the arena, or freed
  // with operator delete by whoever made it without one.
  static void destroy(IterState* it) noexcept;

 private:
  IterState() = default;
  ~IterState() = default;
};

struct Instance {
  Propagation* run = nullptr;  // the run it is part of
  std::uint32_t frame = 0;
  IterState* parent = nullptr;  // the iteration that started it; null for the root
  std::uint32_t depth = 0;      // its ancestors: 0 for the root
  std::uint32_t calls = 0;      // the calls among it and its ancestors
  bool error_call = false;      // a call made because a predicate was an error (Propagator::forced_by_error, X-HALT)
  std::uint32_t child = 0;      // its slot in parent->children
  std::uint32_t site = 0;       // a call's site
  SpinLock lock;
  // Enters (a loop) or Calls (a call) still to come. Written by the worker
  // that holds this instance's lock (or makes it); read under its parent's
  // lock alone too (Propagator::last_call), hence atomic, with plain loads
  // and stores: no two writes race.
  std::atomic<std::int32_t> pending_inputs{0};
  [[nodiscard]] std::int32_t inputs_pending() const { return pending_inputs.load(std::memory_order_relaxed); }
  void set_inputs_pending(std::int32_t n) { pending_inputs.store(n, std::memory_order_relaxed); }
  void input_came() { set_inputs_pending(inputs_pending() - 1); }
  std::uint32_t iterations = 0;     // created
  std::uint32_t done = 0;           // the leading iterations that are done (C-DONE)
  std::uint32_t first = 0;          // the oldest iteration not yet given back
  // Iteration i at i & (size - 1); the size a power of two (a call's: 1).
  boost::container::small_vector<IterState*, 4> ring;
  std::vector<std::pair<std::uint32_t, Token>> invariants;  // (out index, value): every iteration's (C-ENTER-CONST)
  std::vector<std::pair<std::uint32_t, Token>> deferred;    // tokens for the next iteration, not yet started (C-BOUND)
  std::vector<std::uint8_t> exit_fired;                     // by Exit: delivered (C-ONCE)
  IterState* at(std::uint32_t i) const { return ring[i & (ring.size() - 1)]; }
};

// Iteration states and instances of each static frame, kept for reuse, on a
// free list per worker: a worker takes from its own and gives back to its
// own, so that neither takes a lock; only making a new one does, in the
// frame's LineArena. With Calls::dynamic, a call's instance and its state
// are instead made afresh from the function's compiled body at each call and
// freed when it returns, as TensorFlow r1.4's function runtime makes an
// executor state per call.
class InstancePools {
 public:
  InstancePools(const CompiledGraph& g, Calls calls, std::uint32_t workers);
  InstancePools(const InstancePools&) = delete;
  InstancePools& operator=(const InstancePools&) = delete;
  ~InstancePools();
  // Each on worker w's free list (Ready::worker).
  // An iteration state of frame f, every node waiting for all of its inputs.
  IterState* iteration(std::uint32_t f, std::uint32_t w);
  void give_back(std::uint32_t f, IterState* it, std::uint32_t w);  // its slots emptied, its children null
  Instance* instance(std::uint32_t f, std::uint32_t w);
  void give_back(Instance* inst, std::uint32_t w);
  // The instances of frame f made: with one worker, the most alive at once;
  // with more, one made while another worker's list held one counts too.
  [[nodiscard]] std::size_t instances_held(std::uint32_t f) const;

 private:
  // A pair of cache lines each (LineArena): a worker's list written beside
  // another's would pass the line between their cores at every call.
  struct alignas(128) Free {
    std::vector<IterState*> iterations;
    std::vector<Instance*> instances;
  };
  struct Pool {
    std::mutex lock;         // the owned ones
    std::vector<Free> free;  // by worker
    LineArena arena;  // the owned ones' blocks
    std::vector<IterState*> owned_iterations;
    std::vector<Instance*> owned_instances;
  };
  const CompiledGraph& graph_;
  std::vector<std::unique_ptr<Pool>> pools_;  // by frame
  Calls calls_;
  [[nodiscard]] bool fresh(std::uint32_t f) const {
    return calls_ == Calls::dynamic && graph_.frames[f].kind == Frame::Kind::function;
  }
  // A new one of frame f, in the arena (null: allocated on its own, as a dynamic call's is).
  IterState* make_iteration(std::uint32_t f, LineArena* arena) const;
  Instance* make_instance(std::uint32_t f, LineArena* arena) const;
  template <class T, class Make>
  T* take(std::uint32_t f, std::uint32_t w, std::vector<T*> Free::*free, std::vector<T*> Pool::*owned, Make make);
};

// The context an iteration is, outermost first (ExecContext).
ExecContext context_of(const CompiledGraph& g, const IterState* it);

}  // namespace tfsem::fast_exec
