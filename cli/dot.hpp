// Graphviz helpers shared by `tfsem dot` and `tfsem explore --dot`.
#pragma once

#include <string>
#include <string_view>

namespace tfsem::cli {

// Text inside a double-quoted Graphviz label; newlines become left-justified breaks.
std::string dot_escape(std::string_view s);
// Renders `dot_text` as SVG into `file` through Graphviz's `dot`; throws
// InputError when `dot` is not installed or fails.
void render_svg(const std::string& dot_text, const std::string& file);

}  // namespace tfsem::cli
