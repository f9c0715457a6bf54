#include "cli/schedule_file.hpp"

#include "semantics/diagnostic.hpp"

#include <fstream>
#include <sstream>

namespace tfsem::cli {

std::vector<Schedule> read_schedule_file(const Semantics& sem, const std::string& file) {
  std::ifstream in(file);
  if (!in) throw InputError("T-SCHEDULE", file, "", "cannot open schedule file");
  std::stringstream text;
  text << in.rdbuf();
  return read_schedule_text(sem, text.str(), file);
}

std::vector<Schedule> read_schedule_text(const Semantics& sem, const std::string& text, const std::string& origin) {
  const auto& p = sem.program();
  std::istringstream in(text);
  std::vector<Schedule> runs;
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    const auto where = origin + ":" + std::to_string(number);
    if (line.empty() || line[0] == '#') continue;
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

}  // namespace tfsem::cli
