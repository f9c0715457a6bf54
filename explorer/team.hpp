// The search's threads: the calling one and size - 1 helpers, which run one
// job at a time, all of them together. A search runs thousands of short jobs
// (a step and a take-out per chunk of 4,096 states), with a little work on
// the calling thread alone between them. Between jobs a helper spins for a
// while before it sleeps, and so does the caller waiting for the helpers: a
// thread that sleeps takes tens of microseconds to wake on a virtual
// machine, which every job would otherwise pay for a helper that starts late
// (docs/explorer.md, "The team"). A team with more threads than the machine
// has cores never spins.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <thread>
#include <vector>

namespace tfsem::explorer {

class Team {
 public:
  explicit Team(unsigned size);
  ~Team();
  Team(const Team&) = delete;
  Team& operator=(const Team&) = delete;

  [[nodiscard]] unsigned size() const { return static_cast<unsigned>(helpers_.size()) + 1; }
  // Runs job(t) on every thread t of the team (0: this one) and returns when
  // every one has returned. Only the thread that made the team calls it, never
  // from inside a job; a job that throws ends the process (noexcept).
  void run(const std::function<void(unsigned)>& job) noexcept;

 private:
  std::atomic<std::uint64_t> generation_{0};  // bumped for each job, and to stop
  std::atomic<unsigned> running_{0};          // helpers still in the current job
  bool stop_ = false;                         // written before a bump, read after it
  bool spin_;                                 // no more threads than cores
  const std::function<void(unsigned)>* job_ = nullptr;
  std::vector<std::thread> helpers_;

  void helper(unsigned t);
};

}  // namespace tfsem::explorer
