#include "cli/witness_files.hpp"

#include "cli/schedule_file.hpp"
#include "report/runs.hpp"

#include <algorithm>
#include <filesystem>

namespace tfsem::cli {

namespace {

// A node's name in a file name: a '/' (the nodes of a function's body have
// one) becomes '_'.
std::string file_part(std::string_view node) {
  std::string name(node);
  std::replace(name.begin(), name.end(), '/', '_');
  return name;
}

}  // namespace

void write_witnesses(const Semantics& sem, const explorer::Result& r, const std::string& dir, const StopToken* stop) {
  const auto& p = sem.program();
  const StopPoll poll(stop);
  std::filesystem::create_directories(dir);
  for (std::size_t k = 0; k < r.outcomes.size(); ++k) {
    poll.check();
    write_schedule_file(sem, dir + "/outcome-" + std::to_string(k + 1) + ".schedule", {r.outcomes[k].witness},
                        "witness of outcome " + explorer::outcome_text(sem, r.outcomes[k]));
  }
  for (std::size_t k = 0; k < r.races.size(); ++k) {
    poll.check();
    const auto& race = r.races[k];
    const auto base = dir + "/race-" + std::to_string(k + 1);
    write_schedule_file(sem, base + "-" + file_part(p.node(race.first.node).name()) + "-first.schedule", {race.first_then_second},
                        "race on " + p.variable(race.var).name);
    write_schedule_file(sem, base + "-" + file_part(p.node(race.second.node).name()) + "-first.schedule", {race.second_then_first},
                        "race on " + p.variable(race.var).name);
  }
}

void write_witnesses(const std::vector<std::shared_ptr<const Program>>& programs, const explorer::RunsResult& r,
                     const std::string& dir) {
  std::filesystem::create_directories(dir);
  for (std::size_t k = 0; k < r.outcomes.size(); ++k) {
    std::vector<std::pair<std::string, std::string>> runs_of;
    for (std::size_t j = 0; j < programs.size(); ++j) runs_of.emplace_back(programs[j]->hash_hex(), r.outcomes[k].witnesses[j]);
    write_session_schedule_file(dir + "/outcome-" + std::to_string(k + 1) + ".schedule", runs_of,
                                "witness of outcome " + report::runs_outcome_text(*programs.back(), r.outcomes[k]));
  }
}

}  // namespace tfsem::cli
