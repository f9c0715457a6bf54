// The executor's threads, and work stealing between them (fast_exec/workers.hpp).
#include "fast_exec/workers.hpp"

#include <chrono>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

namespace tfsem::fast_exec {

namespace {

// A short wait in a spin loop, which lets the core's other hardware thread run.
void relax() {
#if defined(__x86_64__) || defined(__i386__)
  _mm_pause();
#endif
}

// A hungry worker spins this many times, then yields this many (and more
// while its patience lasts), then sleeps until a busy worker rouses it
// (Sharing::offer) or the run is over.
constexpr int kSpins = 2000;
constexpr int kYields = 50;

}  // namespace

Workers::Workers(std::uint32_t count) {
  for (std::uint32_t w = 1; w < count; ++w) threads_.emplace_back([this, w] { serve(w); });
}

Workers::~Workers() {
  {
    const std::lock_guard guard(lock_);
    closing_ = true;
  }
  wake_.notify_all();
  for (auto& t : threads_) t.join();
}

void Workers::serve(std::uint32_t w) {
  std::uint64_t seen = 0;
  for (;;) {
    const std::function<void(std::uint32_t)>* body = nullptr;
    {
      std::unique_lock guard(lock_);
      wake_.wait(guard, [&] { return closing_ || generation_ != seen; });
      if (closing_) return;
      seen = generation_;
      body = body_;
    }
    (*body)(w);
    const std::lock_guard guard(lock_);
    if (--running_ == 0) idle_.notify_one();
  }
}

void Workers::run(const std::function<void(std::uint32_t)>& body) {
  {
    const std::lock_guard guard(lock_);
    body_ = &body;
    running_ = static_cast<std::uint32_t>(threads_.size());
    ++generation_;
  }
  wake_.notify_all();
  body(0);
  std::unique_lock guard(lock_);
  idle_.wait(guard, [&] { return running_ == 0; });
}

void Sharing::start(std::uint32_t workers) {
  offered_.clear();
  handed_ = 0;
  ready_.store(0, std::memory_order_relaxed);
  wanted_.store(0, std::memory_order_relaxed);
  asleep_.store(0, std::memory_order_relaxed);
  pending_.store(static_cast<std::int32_t>(workers), std::memory_order_relaxed);
}

bool Sharing::offer(const Task& t, bool rouse) {
  const std::lock_guard guard(lock_);
  if (wanted_.load(std::memory_order_relaxed) <= 0) {
    if (!rouse || asleep_.load(std::memory_order_relaxed) == 0) return false;
    // Every sleeper woken: each asks again, and one answer is already there.
    asleep_.store(0, std::memory_order_relaxed);
    ++rousings_;
    offered_cv_.notify_all();
  }
  wanted_.fetch_sub(1, std::memory_order_relaxed);
  pending_.fetch_add(1, std::memory_order_relaxed);  // before anyone can take it: the run is not over
  offered_.push_back(t);
  ready_.store(static_cast<std::int32_t>(offered_.size()), std::memory_order_release);
  ++handed_;
  return true;
}

void Sharing::pop(Task& t) {
  t = offered_.back();
  offered_.pop_back();
  ready_.store(static_cast<std::int32_t>(offered_.size()), std::memory_order_relaxed);
}

bool Sharing::take(Task& t, std::uint32_t delay, std::chrono::microseconds patience) {
  if (pending_.fetch_sub(1, std::memory_order_acq_rel) == 1) {  // the last busy worker: the run is over
    const std::lock_guard guard(lock_);
    offered_cv_.notify_all();
    return false;
  }
  if (delay > 0) {  // a pause before asking, woken by the run's end
    std::unique_lock guard(lock_);
    offered_cv_.wait_for(guard, std::chrono::microseconds(delay), [&] { return over(); });
    if (over()) return false;
  }
  for (;;) {
    wanted_.fetch_add(1, std::memory_order_relaxed);
    const auto until = std::chrono::steady_clock::now() + patience;
    for (int round = 0; round < kSpins + kYields || std::chrono::steady_clock::now() < until; ++round) {
      if (ready_.load(std::memory_order_acquire) > 0) {
        const std::lock_guard guard(lock_);
        if (!offered_.empty()) {
          pop(t);
          return true;  // pending unchanged: an offered task became a busy worker
        }
      }
      if (over()) return false;
      if (round < kSpins) relax();
      else std::this_thread::yield();
    }
    std::unique_lock guard(lock_);
    if (!offered_.empty()) {  // offered meanwhile
      pop(t);
      return true;
    }
    if (over()) return false;
    wanted_.fetch_sub(1, std::memory_order_relaxed);  // the ask withdrawn: nothing is handed to a sleeper
    asleep_.fetch_add(1, std::memory_order_relaxed);
    const auto seen = rousings_;
    offered_cv_.wait(guard, [&] { return rousings_ != seen || over(); });
    if (over()) return false;
  }
}

}  // namespace tfsem::fast_exec
