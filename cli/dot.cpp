#include "cli/dot.hpp"

#include "semantics/diagnostic.hpp"

#include <cstdio>
#include <cstdlib>

namespace tfsem::cli {

std::string dot_escape(std::string_view s) {
  std::string out;
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    if (c == '\n') out += "\\l";
    else out += c;
  }
  return out;
}

void render_svg(const std::string& dot_text, const std::string& file) {
  if (std::system("command -v dot >/dev/null 2>&1") != 0)
    throw InputError("", "--svg", "", "Graphviz's dot is not installed (Debian: apt-get install graphviz)");
  if (file.find('\'') != std::string::npos) throw InputError("", file, "", "a file name for --svg may not contain a quote");
  const std::string command = "dot -Tsvg -o '" + file + "'";
  FILE* pipe = popen(command.c_str(), "w");
  if (pipe == nullptr) throw InputError("", "--svg", "", "cannot run dot");
  std::fwrite(dot_text.data(), 1, dot_text.size(), pipe);
  if (pclose(pipe) != 0) throw InputError("", file, "", "dot failed to render the SVG");
}

}  // namespace tfsem::cli
