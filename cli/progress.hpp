// Progress on a terminal: one line on stderr, redrawn in place, and nothing
// when stderr is not a terminal.
#pragma once

#include "explorer/options.hpp"

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <utility>

namespace tfsem::cli {

// Whether progress is shown: stderr is a terminal.
[[nodiscard]] bool progress_shown();

// Draws `line` over the progress line on stderr, erasing what a longer one left.
void draw_progress(const std::string& line);

// A duration as a person reads it: 45s, 3m20s, 2h05m.
[[nodiscard]] std::string duration_text(double seconds);

// The explorer's progress line (states, rate, memory, elapsed), with the most
// time left where the search is bounded: it stops at the first of --timeout,
// --max-states and --max-memory (the states that fit at the memory each has
// taken so far), each reached at the rate so far.
[[nodiscard]] std::string search_progress_text(const explorer::Progress& p, const explorer::Limits& limits);

// Progress through a known number of items (conform's runs, fuzz's graphs):
// "run K of N, ELAPSED elapsed, ~LEFT left", drawn from 1 s after it is made
// on, at most every 0.25 s.
class CountProgress {
 public:
  CountProgress(std::string what, std::size_t total);
  // `done` items finished; `extra` is said after the count ("2 failed").
  void update(std::size_t done, const std::string& extra = "");
  // Ends the line if this or another progress line (`other_drawn`) is drawn;
  // the next update draws a new one (fuzz ends it before reporting a failure).
  void end(bool other_drawn = false);

 private:
  using Clock = std::chrono::steady_clock;
  std::string what_;
  std::size_t total_;
  bool shown_;
  bool drawn_ = false;
  Clock::time_point start_ = Clock::now(), last_ = start_;
  // The first update's time and count: the estimate is the rate since then
  // (conform's runs start after its reference search).
  std::optional<std::pair<Clock::time_point, std::size_t>> first_;
};

// Progress of work that has no count (loading a graph): "WHAT (PHASE), ELAPSED
// elapsed", the phase the token is in, drawn by a thread of its own from 1 s
// after it is made on, every 0.25 s; erased when it is destroyed. Nothing when
// stderr is not a terminal.
class ElapsedProgress {
 public:
  ElapsedProgress(std::string what, const StopToken* phase_of);
  ~ElapsedProgress();
  ElapsedProgress(const ElapsedProgress&) = delete;
  ElapsedProgress& operator=(const ElapsedProgress&) = delete;

 private:
  std::mutex mutex_;
  std::condition_variable wake_;
  bool done_ = false;
  std::thread drawer_;
};

}  // namespace tfsem::cli
