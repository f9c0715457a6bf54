#include "cli/output.hpp"

#include "report/forms.hpp"
#include "semantics/diagnostic.hpp"

#include <fstream>
#include <iostream>

namespace tfsem::cli {

void write_text(const std::string& text, const std::string& file) {
  if (file.empty()) {
    std::cout << text;
    return;
  }
  std::ofstream f(file);
  f << text;
  if (!f) throw InputError("", file, "", "cannot write the file");
}

bool asks_json(const CLI::App* app) {
  const auto* json = app != nullptr ? app->get_option_no_throw("--json") : nullptr;
  return json != nullptr && json->count() > 0;
}

std::string stop_report(std::string_view by, std::string_view phase, bool json) {
  if (json) return report::stopped_json(by, phase).dump(2) + "\n";
  return report::stopped_line(by, phase.empty() ? "" : " " + std::string(phase));
}

}  // namespace tfsem::cli
