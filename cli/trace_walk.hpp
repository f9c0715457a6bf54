// tfsem trace's walk: fires one transition at a time, from a schedule, at
// random, or the first enabled one in topological order (the oldest context
// first), run after run of a session (S-SESSION: VarValue persists), and
// reports each state to a report::TraceWriter as it goes.
#pragma once

#include "report/trace.hpp"

#include <cstdint>
#include <optional>
#include <vector>

namespace tfsem::cli {

struct Walk {
  std::vector<const Semantics*> graphs;  // run k's (from 0) is graphs[k], the last for any further run
  int runs = 1;
  std::optional<std::vector<Schedule>> schedules;  // run k fires schedules[k]; the runs must have one each
  std::optional<std::uint64_t> seed;               // without schedules: at random, with this seed
  Bounds bounds{};                                 // without schedules: stop before a step beyond them
};

// Whether a step beyond the bounds stopped the walk. Throws InputError when a
// schedule's step is refused or a run has no schedule.
bool walk(const Walk& w, report::TraceWriter& writer);

}  // namespace tfsem::cli
