// Writing a command's text output.
#pragma once

#include <CLI/CLI.hpp>

#include <string>
#include <string_view>

namespace tfsem::cli {

// Writes `text` to `file`, or to stdout when `file` is empty; throws
// InputError naming the file when it cannot be written.
void write_text(const std::string& text, const std::string& file);

// Whether the command `app` (may be null) was given --json.
bool asks_json(const CLI::App* app);
// What a command stopped before it had anything to report prints (`by`: the
// limit, or "out of memory"; `phase`: "during import", or empty): the
// INCOMPLETE line, or as JSON an object saying so.
std::string stop_report(std::string_view by, std::string_view phase, bool json);

}  // namespace tfsem::cli
