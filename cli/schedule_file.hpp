// Schedule files: the witness schedules `tfsem check` writes and `tfsem trace
// --schedule-file` replays. Text, one run per line:
//   # comment
//   graph 0123456789abcdef      (optional: the hash of the graph it was written for)
//   run w,varx2,r
// A session's runs (check --run) each have a graph of their own, pruned to the
// run's fetches: a `graph` line before each `run` line names it.
#pragma once

#include "semantics/session.hpp"

#include <string>
#include <vector>

namespace tfsem::cli {

// Throws InputError when the file names another graph or an unknown node.
std::vector<Schedule> read_schedule_file(const Semantics& sem, const std::string& file);
// The same from the file's text; `origin` names it in errors.
std::vector<Schedule> read_schedule_text(const Semantics& sem, const std::string& text, const std::string& origin);
// A session's: run k (from 0) is read in runs[k], the last for any further run.
std::vector<Schedule> read_schedule_file(const std::vector<const Semantics*>& runs, const std::string& file);
std::vector<Schedule> read_schedule_text(const std::vector<const Semantics*>& runs, const std::string& text,
                                         const std::string& origin);
void write_schedule_file(const Semantics& sem, const std::string& file, const std::vector<Schedule>& runs,
                         const std::string& comment);
// A session's witness: each run's graph hash and schedule, as schedule_to_string writes it.
void write_session_schedule_file(const std::string& file, const std::vector<std::pair<std::string, std::string>>& runs,
                                 const std::string& comment);

}  // namespace tfsem::cli
