// What a search is asked for (explore.hpp, distributed.hpp): the reduction,
// the threads, the limits that stop it early, and the callbacks that watch it.
#pragma once

#include "explorer/reduction.hpp"
#include "semantics/semantics.hpp"
#include "support/stop_token.hpp"

#include <cstdint>
#include <functional>
#include <string>

namespace tfsem::explorer {

struct Limits {
  std::uint64_t max_states = 50'000'000;
  // The process's peak resident memory (explorer/memory_gauge.hpp).
  std::uint64_t max_memory_bytes = std::uint64_t{16} << 30;
  // A behaviour that would start iteration max_iterations of a loop (in any
  // of its frame instances), or make a call max_depth + 1 deep, stops the
  // search, naming the loop or the function.
  Bounds bounds{};
  // The command's stop token (support/stop_token.hpp): an interrupt, the
  // deadline, the resident memory past the token's limit. Polled after each
  // chunk of states, before each state is expanded and within long settles:
  // the search stops, "stopped by" the token's reason, with what it has found.
  const StopToken* stop = nullptr;
};

struct Progress {
  std::uint64_t states = 0;
  std::uint64_t memory_bytes = 0;  // as max_memory_bytes counts it
  double seconds = 0;
};

// Watches the explored state graph (for drawing it): each stored state once,
// with its index (0 is the initial state), and each explored transition.
struct Observer {
  std::function<void(std::uint32_t index, const State& s, bool terminal)> state{};
  std::function<void(std::uint32_t from, std::uint32_t to, const Schedule& steps)> transition{};
};

struct ExploreOptions {
  Por por = Por::rf;
  // Threads expanding states; the states found, the counters, the witnesses
  // and the order of everything reported are the same for every count.
  unsigned threads = 1;
  Limits limits{};
  std::function<void(const Progress&)> progress{};  // called about every 0.25 s
  Observer observer{};
};

// Checkpoints of a search (checkpoint.hpp), one file per reduction in `dir`.
struct Checkpoints {
  std::string dir;
  double every_s = 600;  // between periodic checkpoints
  // Resume from dir's checkpoint of the reduction; without one, refuse when
  // `required`, else search from the start.
  bool resume = false, required = false;
  std::string version;  // the tfsem writing and reading them
};

}  // namespace tfsem::explorer
