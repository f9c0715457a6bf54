// A session's runs as --run gives them (check --run, trace --run): each one
// session.run, "fetch=c:0,d:0;targets=train" or a plain list of fetches
// "c:0,train", its graph the file's pruned to its own fetches and targets, as
// TensorFlow prunes (footnote 7).
#pragma once

#include "cli/graph_options.hpp"
#include "report/runs.hpp"

#include <memory>
#include <string>
#include <vector>

namespace tfsem::cli {

// Throws InputError for a malformed run.
report::RunLabel parse_run(const std::string& text);
// Each run's graph, pruned to its fetches (the import's notes once); throws
// InputError when a run's variables differ from the first run's, and Stopped
// when `stop` (may be null) stops the import.
std::vector<std::shared_ptr<const Program>> session_programs(const GraphOptions& graph, const std::vector<report::RunLabel>& runs,
                                                             const StopToken* stop = nullptr);
// Runs that overlap, as --concurrent gives them, each "LABEL: RUN" with RUN as
// --run takes it: the union of their pruned graphs (S-CONCURRENT); throws
// InputError for a malformed run or a label given twice.
std::shared_ptr<const Program> concurrent_program(const GraphOptions& graph, const std::vector<std::string>& runs,
                                                  const StopToken* stop = nullptr);

}  // namespace tfsem::cli
