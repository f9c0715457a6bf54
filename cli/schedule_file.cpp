#include "cli/schedule_file.hpp"

#include "semantics/diagnostic.hpp"

#include <algorithm>
#include <fstream>
#include <sstream>

namespace tfsem::cli {

std::vector<Schedule> read_schedule_file(const Semantics& sem, const std::string& file) {
  return read_schedule_file(std::vector{&sem}, file);
}

std::vector<Schedule> read_schedule_file(const std::vector<const Semantics*>& sems, const std::string& file) {
  std::ifstream in(file);
  if (!in) throw InputError("T-SCHEDULE", file, "", "cannot open schedule file");
  std::stringstream text;
  text << in.rdbuf();
  return read_schedule_text(sems, text.str(), file);
}

std::vector<Schedule> read_schedule_text(const Semantics& sem, const std::string& text, const std::string& origin) {
  return read_schedule_text(std::vector{&sem}, text, origin);
}

std::vector<Schedule> read_schedule_text(const std::vector<const Semantics*>& sems, const std::string& text,
                                         const std::string& origin) {
  std::istringstream in(text);
  std::vector<Schedule> runs;
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    const auto where = origin + ":" + std::to_string(number);
    if (line.empty() || line[0] == '#') continue;
    const auto& sem = *sems[std::min(runs.size(), sems.size() - 1)];  // the graph of the next run
    const auto& p = sem.program();
    if (line.starts_with("graph ")) {
      if (line.substr(6) != p.hash_hex())
        throw InputError("T-SCHEDULE", where, "", "schedule written for graph " + line.substr(6) + ", not for this graph (" + p.hash_hex() + ")");
    } else if (line.starts_with("run")) {
      try {
        runs.push_back(parse_schedule(sem, line.substr(3)));
      } catch (const InputError& e) {
        auto d = e.diagnostics();
        for (auto& x : d) x.where = where;
        throw InputError(std::move(d));
      }
    } else {
      throw InputError("T-SCHEDULE", where, "", "expected 'graph HASH' or 'run STEPS', got '" + line + "'");
    }
  }
  return runs;
}

void write_schedule_file(const Semantics& sem, const std::string& file, const std::vector<Schedule>& runs,
                         const std::string& comment) {
  const auto& p = sem.program();
  std::ofstream out(file);
  if (!out) throw InputError("T-SCHEDULE", file, "", "cannot write schedule file");
  out << "# tfsem schedule: " << comment << "\ngraph " << p.hash_hex() << "\n";
  for (const auto& r : runs) out << "run " << schedule_to_string(sem, r) << "\n";
}

void write_session_schedule_file(const std::string& file, const std::vector<std::pair<std::string, std::string>>& runs,
                                 const std::string& comment) {
  std::ofstream out(file);
  if (!out) throw InputError("T-SCHEDULE", file, "", "cannot write schedule file");
  out << "# tfsem schedule: " << comment << "\n";
  for (const auto& [hash, steps] : runs) out << "graph " << hash << "\nrun " << steps << "\n";
}

}  // namespace tfsem::cli
