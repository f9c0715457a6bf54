// `tfsem check --run SPEC ... [--runs K]`: a session of runs, as a user's
// session.run calls make it (S-SESSION). Each run is the graph pruned to its
// own fetches and targets, as TensorFlow prunes (footnote 7), and starts from
// the VarValue the run before it left; an outcome is the sequence of the
// runs' outputs, with the final VarValue.
#pragma once

#include "cli/graph_options.hpp"
#include "cli/search_options.hpp"

#include <string>
#include <vector>

namespace tfsem::cli {

// One run: "fetch=c:0,d:0;targets=train", or a plain list of fetches "c:0,train".
struct RunSpec {
  std::string text;
  std::vector<std::string> fetches;  // tensors and targets alike, as --fetch takes them
};
RunSpec parse_run(const std::string& text);
// Each run's graph, pruned to its fetches (the import's notes once); throws
// InputError when a run's variables differ from the first run's.
std::vector<std::shared_ptr<const Program>> session_programs(const GraphOptions& graph, const std::vector<RunSpec>& runs);

// Explores the runs in order (the list `repeats` times) and prints the report,
// with the fixes of a run's graph (a race's control edge, found with at most
// `fix_budget` explorations; 0: none) that make the whole session
// deterministic, each checked by exploring the session with it; returns the
// exit code of check.
// With a `witness_dir`, each outcome's witness goes to a session schedule file
// there, for tfsem trace --run ... --schedule-file.
int check_session(const GraphOptions& graph, const SearchOptions& search, const std::vector<RunSpec>& runs,
                  unsigned repeats, std::size_t fix_budget, const std::string& witness_dir, bool json);

}  // namespace tfsem::cli
