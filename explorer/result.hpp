// What a search finds (explore.hpp, distributed.hpp): every terminal state the
// semantics allows as an outcome, every race between two accesses to one
// variable, each with a witness schedule, and the counters of the search.
#pragma once

#include "explorer/reduction.hpp"
#include "semantics/semantics.hpp"
#include "semantics/session.hpp"

#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace tfsem::explorer {

// The number of explored behaviours (paths of the explored state graph from
// the initial state) reaching a state, counted along the graph, never
// enumerated; under --por=none, every interleaving. Saturates at 2^64 - 1.
using PathCount = std::uint64_t;

inline PathCount saturating_add(PathCount a, PathCount b) { return a > UINT64_MAX - b ? UINT64_MAX : a + b; }

struct Outcome {
  std::vector<std::pair<std::string, Content>> outputs;  // by fetch name
  std::vector<Tensor> var_value;                         // final VarValue
  std::vector<StuckNode> stuck;
  std::vector<Violation> violations;
  PathCount paths = 0;  // explored behaviours reaching it (interleavings under none)
  Schedule witness;
  PathCondition path;  // S-PATH: the terms it branched on, with the values taken
};

// The outcome a terminal state shows.
Outcome outcome_of(const Semantics& sem, const State& terminal);

// "y=B; x=A" and, if any, "; stuck=n1,n2[while:3]" and
// "; violation=merge-two-live:m[while:2]"; under a path condition, after
// "when Less(x,3) is true: ".
std::string outcome_text(const Semantics& sem, const Outcome& o);

// Whether the outcomes are one per path condition: no two of them can both
// happen under one assignment of truth values to the terms branched on
// (their path conditions contradict each other), and there is one at least.
// Outcomes of a run or of a session of runs: anything with a `path`.
template <class Outcomes>
bool one_per_path(const Outcomes& outcomes) {
  for (std::size_t i = 0; i < outcomes.size(); ++i)
    for (auto j = i + 1; j < outcomes.size(); ++j)
      if (!outcomes[i].path.contradicts(outcomes[j].path)) return false;
  return !outcomes.empty();
}

// Two transitions that access one variable, at least one an Assign-f, that
// can fire in either order from some reachable state.
struct Race {
  Transition first, second;
  VarId var;
  bool harmful = false;  // the two orders lead to different states from some explored state
  Schedule first_then_second, second_then_first;
  PathCondition path;  // the path condition of the state its witnesses start from (S-PATH)
};

struct Counters {
  std::uint64_t states_stored = 0;
  std::uint64_t states_matched = 0;
  std::uint64_t transitions = 0;
  std::uint64_t terminal_states = 0;
  std::uint64_t behaviours = 0;           // complete behaviours explored (paths to terminal states)
  std::uint64_t transitions_pruned = 0;   // enabled firings the reduction did not explore
  std::uint64_t firings = 0;              // the explored moves' firings, settled ones included: the steps the search took
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
  [[nodiscard]] bool deterministic() const { return complete && one_per_path(outcomes); }
  [[nodiscard]] bool violated() const {
    return std::any_of(outcomes.begin(), outcomes.end(), [](const Outcome& o) { return !o.violations.empty(); });
  }
};

}  // namespace tfsem::explorer
