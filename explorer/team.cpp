#include "explorer/team.hpp"

#include <algorithm>
#include <chrono>

namespace tfsem::explorer {

namespace {

// Waits until `value` differs from `old`: spinning up to kSpin (if `spin`),
// then asleep. The caller's work between two jobs is mostly well under kSpin.
constexpr auto kSpin = std::chrono::microseconds(200);

template <class T>
T await_change(const std::atomic<T>& value, T old, bool spin) {
  const auto until = std::chrono::steady_clock::now() + kSpin;
  for (unsigned i = 1; spin; ++i) {
    if (const auto v = value.load(std::memory_order_acquire); v != old) return v;
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
    if (i % 64 == 0 && std::chrono::steady_clock::now() > until) break;
  }
  for (;;) {
    value.wait(old, std::memory_order_acquire);
    if (const auto v = value.load(std::memory_order_acquire); v != old) return v;
  }
}

}  // namespace

Team::Team(unsigned size) : spin_(size <= std::max(1U, std::thread::hardware_concurrency())) {
  for (unsigned t = 1; t < size; ++t) helpers_.emplace_back([this, t] { helper(t); });
}

Team::~Team() {
  stop_ = true;
  generation_.fetch_add(1, std::memory_order_release);
  generation_.notify_all();
  for (auto& h : helpers_) h.join();
}

void Team::run(const std::function<void(unsigned)>& job) noexcept {
  if (helpers_.empty()) return job(0);
  job_ = &job;
  running_.store(size() - 1, std::memory_order_relaxed);
  generation_.fetch_add(1, std::memory_order_release);
  generation_.notify_all();
  job(0);
  for (auto left = running_.load(std::memory_order_acquire); left != 0;) left = await_change(running_, left, spin_);
}

void Team::helper(unsigned t) {
  for (std::uint64_t seen = 0;;) {
    seen = await_change(generation_, seen, spin_);
    if (stop_) return;
    (*job_)(t);
    if (running_.fetch_sub(1, std::memory_order_acq_rel) == 1) running_.notify_one();
  }
}

}  // namespace tfsem::explorer
