// Writing a command's text output.
#pragma once

#include <string>

namespace tfsem::cli {

// Writes `text` to `file`, or to stdout when `file` is empty; throws
// InputError naming the file when it cannot be written.
void write_text(const std::string& text, const std::string& file);

}  // namespace tfsem::cli
