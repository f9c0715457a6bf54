#include "support/stop_token.hpp"

#include "support/resident_memory.hpp"

#include <time.h>

#include <cstdlib>

namespace tfsem {

namespace {

// The coarse monotonic clock (a few milliseconds' resolution, read without
// a system call), in nanoseconds.
std::int64_t coarse_now_ns() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
  return std::int64_t{ts.tv_sec} * 1'000'000'000 + ts.tv_nsec;
}

}  // namespace

StopToken::~StopToken() { std::free(reserve_.exchange(nullptr)); }

void StopToken::set_deadline(Clock::time_point deadline) {
  deadline_ = deadline;
  const auto left = std::chrono::duration_cast<std::chrono::nanoseconds>(deadline - Clock::now()).count();
  deadline_ns_ = coarse_now_ns() + left;
}

void StopToken::reserve(std::size_t bytes) { std::free(reserve_.exchange(std::malloc(bytes))); }

bool StopToken::stopped() const {
  if (reason() != StopReason::none) return true;
  if (interrupt_ != nullptr && interrupt_->load(std::memory_order_relaxed)) {
    stop(StopReason::interrupt);
    return true;
  }
  if (!deadline_ && max_memory_ == 0) return false;
  const auto now = coarse_now_ns();
  if (deadline_ && now >= deadline_ns_ && Clock::now() >= *deadline_) {
    stop(StopReason::timeout);
    return true;
  }
  if (max_memory_ == 0) return false;
  auto next = next_sample_ns_.load(std::memory_order_relaxed);
  if (now < next || !next_sample_ns_.compare_exchange_strong(next, now + std::chrono::nanoseconds(kSample).count()))
    return false;
  if (resident_set_bytes().value_or(0) <= max_memory_) return false;
  stop(StopReason::memory);
  return true;
}

void StopToken::check() const {
  if (!stopped()) return;
  const Stopped e(reason(), reason_text(), phase());
  if (const auto end = end_.load(std::memory_order_relaxed)) end(e);
  throw e;
}

void StopToken::stop(StopReason why) const {
  auto none = StopReason::none;
  reason_.compare_exchange_strong(none, why);
}

void StopToken::out_of_memory() const {
  std::free(reserve_.exchange(nullptr));
  stop(StopReason::out_of_memory);
}

void StopToken::begin_report(std::chrono::milliseconds grace) {
  const auto why = reason_.exchange(StopReason::none);
  if (why == StopReason::interrupt) interrupt_ = nullptr;  // a second signal ends the process (cli/interrupt.hpp)
  if (why == StopReason::memory) max_memory_ = 0;
  if (deadline_ && *deadline_ < Clock::now() + grace) set_deadline(Clock::now() + grace);
}

std::string StopToken::reason_text() const {
  switch (reason()) {
    case StopReason::none: return "";
    case StopReason::interrupt: return "interrupt";
    case StopReason::timeout: return "timeout";
    case StopReason::memory: return "max-memory " + std::to_string(max_memory_ >> 20) + " MiB";
    case StopReason::out_of_memory: return "out of memory";
  }
  return "";
}

std::optional<double> StopToken::seconds_left() const {
  if (!deadline_) return std::nullopt;
  return std::chrono::duration<double>(*deadline_ - Clock::now()).count();
}

}  // namespace tfsem
