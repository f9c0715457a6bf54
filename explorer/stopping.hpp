// When a search (explore.cpp, distributed.cpp) stops before it is complete,
// and why: the limits of ExploreOptions and the bounds, each with the text
// Result::stopped_by gives it, and the clock that the progress callback
// reads. Which limits a search looks at, and when, is its
// own; the first limit reached stops it, and a later one changes nothing.
#pragma once

#include "explorer/options.hpp"
#include "explorer/result.hpp"

#include <chrono>
#include <cstdint>
#include <string>

namespace tfsem::explorer {

// Why a search stopped (none: it did not).
enum class Stop : std::uint8_t { none, bound, states, memory, timeout, interrupt };

class Stopping {
 public:
  Stopping(const Semantics& sem, const ExploreOptions& options) : sem_(sem), options_(options) {}

  // Starts the clock.
  void start() { start_ = last_progress_ = Clock::now(); }
  [[nodiscard]] double elapsed() const { return std::chrono::duration<double>(Clock::now() - start_).count(); }

  [[nodiscard]] Stop why() const { return why_; }
  [[nodiscard]] bool stopped() const { return why_ != Stop::none; }
  // An incomplete result, stopped by the reason, if the search stopped.
  void into(Result& r) const;

  // A behaviour would start iteration max_iterations of loop `frame`, or
  // call function `frame` past max_depth: the search stops, naming it, and
  // for a loop the unknown inputs its condition depends on.
  void at_bound(FrameId frame);
  // Whether each limit is reached (then the search stops, if it has not yet):
  // the stop token's (an interrupt, the timeout, its memory limit), more
  // than max_states states stored, more than max_memory_bytes held.
  bool stopped_by_token();
  bool past_states(std::uint64_t stored);
  bool past_memory(std::uint64_t bytes);
  // An allocation failed: the search stops, "out of memory" (and so does the
  // token's work, whose reserve is freed for the report).
  void out_of_memory();

  // Calls the progress callback, if there is one and 0.25 s have passed
  // since its last call, with `states` and the memory memory() reads.
  template <class Memory>
  void progress(std::uint64_t states, Memory&& memory) {
    if (!options_.progress || Clock::now() - last_progress_ <= std::chrono::milliseconds(250)) return;
    last_progress_ = Clock::now();
    options_.progress({states, memory(), elapsed()});
  }

 private:
  using Clock = std::chrono::steady_clock;
  const Semantics& sem_;
  const ExploreOptions& options_;
  Clock::time_point start_ = Clock::now(), last_progress_ = start_;
  Stop why_ = Stop::none;
  std::string reason_;

  void stop(Stop why, std::string reason);
};

}  // namespace tfsem::explorer
