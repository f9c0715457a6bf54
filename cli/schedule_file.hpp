// Schedule files: the witness schedules `tfsem check` writes and `tfsem trace
// --schedule-file` replays. Text, one run per line:
//   # comment
//   graph 0123456789abcdef      (optional: the hash of the graph it was written for)
//   run w,varx2,r
#pragma once

#include "semantics/session.hpp"

#include <string>
#include <vector>

namespace tfsem::cli {

// Throws InputError when the file names another graph or an unknown node.
std::vector<Schedule> read_schedule_file(const Semantics& sem, const std::string& file);
// The same from the file's text; `origin` names it in errors.
std::vector<Schedule> read_schedule_text(const Semantics& sem, const std::string& text, const std::string& origin);
void write_schedule_file(const Semantics& sem, const std::string& file, const std::vector<Schedule>& runs,
                         const std::string& comment);

}  // namespace tfsem::cli
