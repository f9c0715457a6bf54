// The executor's threads, and how a run's work is shared between them: work
// stealing with private stacks (Acar, Charguéraud and Rainey, PPoPP 2013),
// as Cilk and TBB steal: each worker runs the tasks it makes ready depth
// first, from a stack of its own that no other thread touches (as on a call
// stack: a callee's tasks before its caller's, fast_exec/executor.cpp), and a
// worker with nothing to run takes the oldest task of a busy one, the bottom
// of its stack: the shallowest call, the one with the most work under it. A
// busy worker pays one load between firings to see whether some worker is
// hungry; only then does it hand its oldest task over (Sharing::offer).
// Private to fast_exec.
#pragma once

#include "fast_exec/propagator.hpp"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace tfsem::fast_exec {

// Threads that run a body together, once per run: the calling thread is
// worker 0; the others wait between runs.
class Workers {
 public:
  explicit Workers(std::uint32_t count);  // count - 1 threads started
  ~Workers();
  Workers(const Workers&) = delete;
  Workers& operator=(const Workers&) = delete;
  [[nodiscard]] std::uint32_t size() const { return static_cast<std::uint32_t>(threads_.size()) + 1; }
  // body(w) on every worker w; returns when every one has returned.
  void run(const std::function<void(std::uint32_t)>& body);

 private:
  std::vector<std::thread> threads_;
  std::mutex lock_;
  std::condition_variable wake_, idle_;
  const std::function<void(std::uint32_t)>* body_ = nullptr;
  std::uint64_t generation_ = 0;  // runs started
  std::uint32_t running_ = 0;     // helpers in this run's body
  bool closing_ = false;
  void serve(std::uint32_t w);
};

// One run's sharing of tasks between its workers. A worker is busy while its
// stack holds tasks or it fires one; pending counts the busy workers and the
// tasks offered and not yet taken, so the run is over when it reaches 0. A
// hungry worker asks for a task and spins a while; then it withdraws its ask
// and sleeps, and no task is handed to it unless a busy worker has work
// enough to rouse it: waking a sleeping core takes long (tens to hundreds of
// microseconds on a virtual machine), more than a short task saves, and a
// task on the run's critical path would wait for it.
class Sharing {
 public:
  // A run starts with every worker busy; each one's first take makes it hungry.
  void start(std::uint32_t workers);
  // Whether some hungry worker, awake, waits for a task (a busy worker's look between firings).
  [[nodiscard]] bool wanted() const { return wanted_.load(std::memory_order_relaxed) > 0; }
  // Whether some hungry worker sleeps, its ask withdrawn.
  [[nodiscard]] bool drowsy() const { return asleep_.load(std::memory_order_relaxed) > 0; }
  // Hands t to a hungry worker that asks; with `rouse`, when none asks, to a
  // sleeping one, woken (the others woken too ask again). False, t kept, when
  // there is none.
  bool offer(const Task& t, bool rouse = false);
  // Whether the calling busy worker is the only one: no other is busy and
  // nothing is offered, so that nothing else touches the run until it offers.
  [[nodiscard]] bool alone() const { return pending_.load(std::memory_order_acquire) == 1; }
  // The calling worker's stack is empty: no longer busy, it waits `delay`
  // microseconds, then asks for a task and waits for one, awake for
  // `patience` (at least a short spin), then asleep. False when the
  // run is over: no worker is busy and nothing is offered.
  bool take(Task& t, std::uint32_t delay, std::chrono::microseconds patience = {});
  // The tasks offered in the run, once it is over.
  [[nodiscard]] std::uint64_t handed() const { return handed_; }

 private:
  std::mutex lock_;
  std::condition_variable offered_cv_;
  std::vector<Task> offered_;
  std::atomic<std::int32_t> pending_{0};
  // The workers that ask (awake and hungry) less the tasks offered and not
  // yet taken: a task is offered only while some ask is unanswered.
  std::atomic<std::int32_t> wanted_{0};
  std::atomic<std::int32_t> ready_{0};   // offered_.size()
  std::atomic<std::int32_t> asleep_{0};  // hungry workers whose ask is withdrawn, not yet roused
  std::uint64_t rousings_ = 0;           // under lock_
  std::uint64_t handed_ = 0;
  [[nodiscard]] bool over() const { return pending_.load(std::memory_order_acquire) == 0; }
  // The last offered task into t, under lock_.
  void pop(Task& t);
};

}  // namespace tfsem::fast_exec
