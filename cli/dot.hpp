// Graphviz helpers shared by `tfsem dot` and `tfsem explore --dot`.
#pragma once

#include <string>

namespace tfsem::cli {

// Text inside a double-quoted Graphviz label; newlines become left-justified breaks.
std::string dot_escape(const std::string& s);
// Writes `dot_text` to `file`, or renders it as SVG through Graphviz's `dot`
// when `svg`; throws InputError when the file cannot be written or `dot` is
// not installed.
void write_dot(const std::string& dot_text, const std::string& file, bool svg);

}  // namespace tfsem::cli
