#include "cli/run_spec.hpp"

#include "semantics/concurrent.hpp"
#include "semantics/diagnostic.hpp"

#include <algorithm>

namespace tfsem::cli {

report::RunLabel parse_run(const std::string& text) {
  report::RunLabel run{text, {}};
  auto add_list = [&](const std::string& list) {
    for (std::size_t begin = 0; begin <= list.size();) {
      const auto end = std::min(list.find(',', begin), list.size());
      if (end > begin) run.fetches.push_back(list.substr(begin, end - begin));
      begin = end + 1;
    }
  };
  if (text.find('=') == std::string::npos) {
    add_list(text);
    return run;
  }
  for (std::size_t begin = 0; begin < text.size();) {
    const auto end = std::min(text.find(';', begin), text.size());
    const auto part = text.substr(begin, end - begin);
    const auto eq = part.find('=');
    const auto key = part.substr(0, eq);
    if (eq == std::string::npos || (key != "fetch" && key != "targets"))
      throw InputError("", "--run", "'" + text + "'", "a run is fetch=NAMES;targets=NAMES, or a list of fetches");
    add_list(part.substr(eq + 1));
    begin = end + 1;
  }
  return run;
}

std::vector<std::shared_ptr<const Program>> session_programs(const GraphOptions& graph, const std::vector<report::RunLabel>& runs,
                                                             const StopToken* stop) {
  std::vector<std::shared_ptr<const Program>> programs;
  for (const auto& r : runs) {
    auto g = graph;
    g.fetches = r.fetches;
    programs.push_back(g.program(programs.empty(), stop));  // the import's notes once
    const auto& vars = programs.back()->variables();
    const auto& first = programs.front()->variables();
    for (std::size_t x = 0; x < vars.size(); ++x)
      if (vars.size() != first.size() || vars[x].name != first[x].name)
        throw InputError("", "--run", "'" + r.text + "'", "its graph's variables differ from the first run's");
  }
  return programs;
}

std::shared_ptr<const Program> concurrent_program(const GraphOptions& graph, const std::vector<std::string>& runs,
                                                  const StopToken* stop) {
  std::vector<std::string> labels;
  std::vector<report::RunLabel> parsed;
  for (const auto& text : runs) {
    const auto colon = text.find(':');
    if (colon == std::string::npos)
      throw InputError("", "--concurrent", "'" + text + "'", "a concurrent run is LABEL: RUN, RUN as --run takes it");
    const auto first = text.find_first_not_of(' ', colon + 1);
    labels.push_back(text.substr(0, colon));
    parsed.push_back(parse_run(first == std::string::npos ? "" : text.substr(first)));
  }
  const auto programs = session_programs(graph, parsed, stop);
  std::vector<ConcurrentRun> concurrent;
  for (std::size_t k = 0; k < programs.size(); ++k) concurrent.push_back({labels[k], programs[k]});
  return Program::build(concurrent_runs(concurrent));
}

}  // namespace tfsem::cli
