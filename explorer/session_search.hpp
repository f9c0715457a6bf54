// The search of a session of runs, as a user's session.run calls make it
// (S-SESSION): each run is its own program (the graph pruned to the run's
// fetches and targets, footnote 7) and starts from the VarValue the run before
// it left; an outcome is the sequence of the runs' outputs, with the final
// VarValue. Each run is explored once from each start it can have. A fix of a
// run's graph (explorer/fix.hpp) holds for the session when exploring the
// session with it, in every run of that graph, gives one outcome per path
// condition: a run's path condition carries over to the runs after it, and a
// sequence whose runs assumed contradicting values of a term is no behaviour.
#pragma once

#include "explorer/explore.hpp"

#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace tfsem::explorer {

struct RunsOptions {
  ExploreOptions explore{};
  // Explorations a run's fix search may spend, and the fixes checked on the
  // whole session at most; 0: no fixes.
  std::size_t fix_budget = 0;
  // Called after each exploration of a run (the command line ends its progress line).
  std::function<void(const Result&)> explored{};
  // Whether a fix may add a control edge from a to b in a run's graph (as FixOptions::may_order); none: every edge.
  std::function<bool(const Program&, NodeId a, NodeId b)> may_order{};
};

// One outcome of the session: each run's outputs (as outcome_text writes them,
// without the VarValue), each run's witness (as schedule_to_string writes it),
// the final VarValue, the explored behaviours reaching it, and what its runs
// assumed of the terms they branched on (S-PATH), together.
struct RunsOutcome {
  std::vector<std::string> runs, witnesses;
  std::vector<Tensor> var_value;
  PathCount paths = 1;
  PathCondition path;
};

// A race within one run, its transitions named in that run's graph.
struct RunRace {
  std::size_t run = 0;  // from 0
  std::string first, second, variable;
  bool harmful = false;
};

// A fix of one run's graph, in every run that has that graph, that makes the
// whole session deterministic.
struct RunFix {
  std::size_t run = 0;  // from 0: the run whose races suggested it
  std::string text;     // as fix_text writes it
  ProgramSpec fixed;    // the run's graph with the fix applied
  std::vector<RunsOutcome> outcomes;  // the session's outcomes with it, one per path condition
};

struct RunsResult {
  std::string stopped_by;  // "run K: LIMIT", the first run a limit stopped; empty when complete
  std::vector<RunsOutcome> outcomes;  // equal sequences of outputs and VarValue are one outcome
  std::vector<RunRace> races;         // each once, in the order found
  std::vector<RunFix> fixes;          // checked on the session (none when incomplete)
  bool violated = false;              // some run's outcome has a violation
  Counters counters;                  // summed over the explorations of the runs
  double seconds = 0;
  [[nodiscard]] bool complete() const { return stopped_by.empty(); }
  // One outcome per path condition of the session (S-PATH).
  [[nodiscard]] bool deterministic() const { return complete() && one_per_path(outcomes); }
};

// Explores the runs in order, the first from the initial VarValue of the first
// run's graph. The programs share their variables (by name, in order).
RunsResult explore_runs(const std::vector<std::shared_ptr<const Program>>& programs, const Options& semantics,
                        const RunsOptions& options);

}  // namespace tfsem::explorer
