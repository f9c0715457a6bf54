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
// tasks offered and not yet taken, so the run is over when it reaches 0.
class Sharing {
 public:
  // A run starts with every worker busy; each one's first take makes it hungry.
  void start(std::uint32_t workers);
  // Whether some hungry worker waits for a task (a busy worker's look between firings).
  [[nodiscard]] bool wanted() const { return wanted_.load(std::memory_order_relaxed) > 0; }
  // Hands t to a hungry worker; false, t kept, when none wants one any more.
  bool offer(const Task& t);
  // Whether the calling busy worker is the only one: no other is busy and
  // nothing is offered, so that nothing else touches the run until it offers.
  [[nodiscard]] bool alone() const { return pending_.load(std::memory_order_acquire) == 1; }
  // The calling worker's stack is empty: no longer busy, it waits `delay`
  // microseconds, then asks for a task and waits for one. False when the run
  // is over: no worker is busy and nothing is offered.
  bool take(Task& t, std::uint32_t delay);
  // The tasks offered in the run, once it is over.
  [[nodiscard]] std::uint64_t handed() const { return handed_; }

 private:
  std::mutex lock_;
  std::condition_variable offered_cv_;
  std::vector<Task> offered_;
  std::atomic<std::int32_t> pending_{0};
  std::atomic<std::int32_t> wanted_{0};  // asks not yet answered
  std::atomic<std::int32_t> ready_{0};   // offered_.size()
  std::uint32_t sleeping_ = 0;            // workers waiting on offered_cv_
  std::uint64_t handed_ = 0;
  [[nodiscard]] bool over() const { return pending_.load(std::memory_order_acquire) == 0; }
};

}  // namespace tfsem::fast_exec
