// The exhaustive search over single firings (section 3.2.1; in execution
// contexts, section 4): every terminal state the semantics allows, every race
// between two accesses to one variable, every violation, with a witness
// schedule for each. The search knows the semantics only through its
// interface (initial, frontier, fire, access, stuck, violations), keeps states
// packed (codec.hpp) and firings cached (firings.hpp), and which firings it
// explores is the reduction's business (reduction.hpp).
#pragma once

#include "explorer/reduction.hpp"
#include "semantics/semantics.hpp"
#include "semantics/session.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace tfsem::explorer {

struct Limits {
  std::uint64_t max_states = 50'000'000;
  // The process's peak resident memory (explorer/memory_gauge.hpp).
  std::uint64_t max_memory_bytes = std::uint64_t{16} << 30;
  std::optional<std::chrono::duration<double>> timeout;
  // A behaviour that would start iteration max_iterations of a loop (in any
  // of its frame instances), or make a call max_depth + 1 deep, stops the
  // search, naming the loop or the function.
  Bounds bounds{};
  // Set from outside (another thread, a signal handler): the search stops
  // after the chunk of states it is expanding, "stopped by interrupt", with
  // what it has found.
  const std::atomic<bool>* stop = nullptr;
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

// The number of explored behaviours (paths of the explored state graph from
// the initial state) reaching a state, counted along the graph, never
// enumerated; under --por=none, every interleaving. Saturates at 2^64 - 1.
using PathCount = std::uint64_t;

struct Outcome {
  std::vector<std::pair<std::string, Content>> outputs;  // by fetch name
  std::vector<Tensor> var_value;                         // final VarValue
  std::vector<StuckNode> stuck;
  std::vector<Violation> violations;
  PathCount paths = 0;  // explored behaviours reaching it (interleavings under none)
  Schedule witness;
};

// The outcome a terminal state shows.
Outcome outcome_of(const Semantics& sem, const State& terminal);

// Two transitions that access one variable, at least one an Assign-f, that
// can fire in either order from some reachable state.
struct Race {
  Transition first, second;
  VarId var;
  bool harmful = false;  // the two orders lead to different states from some explored state
  Schedule first_then_second, second_then_first;
};

struct Counters {
  std::uint64_t states_stored = 0;
  std::uint64_t states_matched = 0;
  std::uint64_t transitions = 0;
  std::uint64_t terminal_states = 0;
  std::uint64_t behaviours = 0;           // complete behaviours explored (paths to terminal states)
  std::uint64_t transitions_pruned = 0;   // enabled firings the reduction did not explore
};

struct Result {
  Por por = Por::none;
  bool complete = true;
  std::string stopped_by;  // the limit that stopped an incomplete search
  std::vector<Outcome> outcomes;
  std::vector<Race> races;
  Counters counters;
  double seconds = 0;
  std::uint64_t memory_bytes = 0;  // the peak, as max_memory_bytes counts it
  std::uint64_t store_bytes = 0;   // the visited states' own structures at the end (explorer/visited.hpp)
  [[nodiscard]] bool deterministic() const { return complete && outcomes.size() == 1; }
  [[nodiscard]] bool violated() const {
    return std::any_of(outcomes.begin(), outcomes.end(), [](const Outcome& o) { return !o.violations.empty(); });
  }
};

Result explore(const Semantics& sem, const ExploreOptions& options = {});

// "y=B; x=A" and, if any, "; stuck=n1,n2[while:3]" and
// "; violation=merge-two-live:m[while:2]".
std::string outcome_text(const Semantics& sem, const Outcome& o);

}  // namespace tfsem::explorer
