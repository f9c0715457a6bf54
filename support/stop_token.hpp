// When a command's work must stop before it is done, and why: an interrupt
// (SIGINT, SIGTERM), the timeout, the resident memory past its limit, or an
// allocation that failed. A command makes one token and passes it down to
// every phase (import, validation, search, fix verification, output); each
// phase polls it where it loops, and stops with what it has found. Polling is
// cheap and may be done from any thread: an atomic load, a coarse clock
// (CLOCK_MONOTONIC_COARSE) against the deadline, and the resident set
// (/proc/self/statm), read at most once every kSample by whichever thread
// polls first. The first reason found stays.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>

namespace tfsem {

enum class StopReason : std::uint8_t { none, interrupt, timeout, memory, out_of_memory };

class Stopped;

class StopToken {
 public:
  using Clock = std::chrono::steady_clock;
  static constexpr auto kSample = std::chrono::milliseconds(2);

  StopToken() = default;
  StopToken(const StopToken&) = delete;
  StopToken& operator=(const StopToken&) = delete;
  ~StopToken();

  // The limits, set before the work starts: a flag that a signal handler or
  // another thread sets (an interrupt), the deadline, the most resident
  // memory (0: none).
  void watch(const std::atomic<bool>* interrupt) { interrupt_ = interrupt; }
  void set_deadline(Clock::time_point deadline);
  void set_max_memory(std::uint64_t bytes) { max_memory_ = bytes; }
  // Keeps `bytes` of address space allocated (not touched) until an
  // allocation fails (out_of_memory): the room the report needs then.
  void reserve(std::size_t bytes);

  // Whether the work must stop; the first time a limit is found passed, it
  // becomes the reason.
  [[nodiscard]] bool stopped() const;
  // Throws Stopped if stopped(), or first calls the handler set by
  // end_on_stop, if any.
  void check() const;
  // What check() does on a stop in a phase with nothing found so far (an
  // import): report the stop and end the process, without unwinding what
  // the phase built (freeing a large graph may take longer than the
  // timeout's margin). Null: throw Stopped.
  using EndOnStop = void (*)(const Stopped&);
  void end_on_stop(EndOnStop handler) const { end_.store(handler, std::memory_order_relaxed); }
  // Stops the work for `why` (the first reason stays).
  void stop(StopReason why) const;
  // An allocation failed: frees the reserve and stops the work, out of memory.
  void out_of_memory() const;

  [[nodiscard]] StopReason reason() const { return reason_.load(std::memory_order_relaxed); }
  // "interrupt", "timeout", "max-memory N MiB", "out of memory".
  [[nodiscard]] std::string reason_text() const;
  // Starts the last phase, the report of what was found: the stop that
  // ended the work before, if any, does not stop it (an interrupt seen or
  // the resident memory passed are given up), and the deadline leaves it at
  // least `grace`. Called while no other thread polls.
  void begin_report(std::chrono::milliseconds grace);
  // The phase under way, for the message of a stop ("during import").
  void enter(const char* phase) const { phase_.store(phase, std::memory_order_relaxed); }
  [[nodiscard]] const char* phase() const { return phase_.load(std::memory_order_relaxed); }
  // Seconds to the deadline, if there is one.
  [[nodiscard]] std::optional<double> seconds_left() const;
  [[nodiscard]] std::uint64_t max_memory() const { return max_memory_; }

 private:
  const std::atomic<bool>* interrupt_ = nullptr;
  std::optional<Clock::time_point> deadline_;
  std::int64_t deadline_ns_ = 0;  // on the coarse clock
  std::uint64_t max_memory_ = 0;
  mutable std::atomic<StopReason> reason_{StopReason::none};
  mutable std::atomic<const char*> phase_{""};
  mutable std::atomic<std::int64_t> next_sample_ns_{0};
  mutable std::atomic<void*> reserve_{nullptr};
  mutable std::atomic<EndOnStop> end_{nullptr};
};

// What a phase that cannot give a partial result throws when its token is
// stopped: the reason, and the phase.
class Stopped : public std::runtime_error {
 public:
  Stopped(StopReason why, const std::string& text, std::string phase)
      : std::runtime_error(text), why_(why), phase_(std::move(phase)) {}
  [[nodiscard]] StopReason reason() const { return why_; }
  [[nodiscard]] const std::string& phase() const { return phase_; }

 private:
  StopReason why_;
  std::string phase_;
};

// A stop token (may be null) polled in a loop whose steps are too short to
// poll each one: every `every`th step.
class StopPoll {
 public:
  explicit StopPoll(const StopToken* stop, std::uint32_t every = 256) : stop_(stop), every_(every) {}
  // Whether the work must stop, looked at every `every`th call.
  bool tick() { return stop_ != nullptr && ++count_ % every_ == 0 && stop_->stopped(); }
  // Throws Stopped if the work must stop: looked at now (check), or every
  // `every`th call (tick_check).
  void check() const {
    if (stop_ != nullptr) stop_->check();
  }
  void tick_check() {
    if (tick()) stop_->check();
  }

 private:
  const StopToken* stop_;
  std::uint32_t every_, count_ = 0;
};

}  // namespace tfsem
