// Work split over a few threads, each started for it and joined at the end.
#pragma once

#include <cstddef>
#include <thread>
#include <vector>

namespace tfsem {

// Runs f(k) for each k in [0, parts): f(0) on this thread, after the others
// have each been started on a thread of its own; all are joined before it
// returns. A thread that cannot start throws (std::system_error) once those
// started are joined, and f(0) has not run then.
template <class F>
void on_threads(std::size_t parts, const F& f) {
  std::vector<std::jthread> helpers;
  helpers.reserve(parts - 1);
  for (std::size_t k = 1; k < parts; ++k) helpers.emplace_back([&f, k] { f(k); });
  f(0);
}

}  // namespace tfsem
