// check --witness-dir: each outcome's witness, and each race's two orders, as
// schedule files (cli/schedule_file.hpp) for tfsem trace --schedule-file.
#pragma once

#include "explorer/explore.hpp"
#include "explorer/session_search.hpp"

#include <memory>
#include <string>
#include <vector>

namespace tfsem::cli {

// outcome-K.schedule for each outcome, and race-K-NODE-first.schedule for each
// order of each race (a '/' in NODE written '_'); `stop` (may be null) is
// polled before each file, and a stop throws Stopped.
void write_witnesses(const Semantics& sem, const explorer::Result& r, const std::string& dir, const StopToken* stop = nullptr);
// A session's: outcome-K.schedule, each run's graph hash before its steps, for
// trace with the same --run options.
void write_witnesses(const std::vector<std::shared_ptr<const Program>>& programs, const explorer::RunsResult& r,
                     const std::string& dir);

}  // namespace tfsem::cli
