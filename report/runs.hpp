// The report of `tfsem check --run ...`, a session of runs
// (explorer/session_search.hpp): the runs, every outcome (each run's outputs,
// the final VarValue) with each run's witness, the verdict, each run's races,
// the fixes that make the session deterministic, the counters.
#pragma once

#include "explorer/session_search.hpp"

#include <nlohmann/json.hpp>

#include <memory>
#include <string>
#include <vector>

namespace tfsem::report {

// A run as the command line gave it (--run): its text, and what it fetches.
struct RunLabel {
  std::string text;
  std::vector<std::string> fetches;  // tensors and targets alike, as --fetch takes them
};

struct RunsReport {
  const std::vector<RunLabel>& labels;
  const std::vector<std::shared_ptr<const Program>>& programs;  // each run's graph
  const explorer::RunsResult& result;
  std::string_view por;
  bool fixes_searched = false;
};

std::string runs_text(const RunsReport& r);
nlohmann::json runs_json(const RunsReport& r);

// "run 1: OUTPUTS | run 2: OUTPUTS | VarValue", the variables named in `last`.
std::string runs_outcome_text(const Program& last, const explorer::RunsOutcome& o);

}  // namespace tfsem::report
