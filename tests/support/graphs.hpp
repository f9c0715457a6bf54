// Test helpers: programs from inline JSON, the state a schedule reaches, and
// every terminal state of a small graph by brute-force enumeration of all
// schedules (independent of explorer/).
#pragma once

#include <doctest/doctest.h>

#include "formats/json/graph_json.hpp"
#include "semantics/semantics.hpp"
#include "semantics/session.hpp"
#include "semantics/unknown_inputs.hpp"

#include <filesystem>
#include <set>
#include <string>
#include <unordered_set>
#include <vector>

namespace tfsem::test {

inline std::shared_ptr<const Program> program_from(const std::string& json_text) {
  return Program::build(format::parse_program(nlohmann::json::parse(json_text)));
}

inline std::shared_ptr<const Program> program_file(const std::string& model) {
  return Program::build(format::load_program_file(std::string(TFSEM_SOURCE_DIR) + "/" + model));
}

// Every shipped model, built.
inline std::vector<std::shared_ptr<const Program>> shipped_models() {
  std::vector<std::shared_ptr<const Program>> out;
  for (const auto& f : std::filesystem::directory_iterator(std::string(TFSEM_SOURCE_DIR) + "/models"))
    if (f.path().extension() == ".json") out.push_back(Program::build(format::load_program_file(f.path())));
  return out;
}

// The shipped models an executor can run: those whose Switch predicates
// depend on no unknown input (the others branch under path conditions, S-PATH).
inline std::vector<std::shared_ptr<const Program>> executable_models() {
  auto out = shipped_models();
  std::erase_if(out, [](const auto& p) { return !unknown_inputs(Semantics(p)).empty(); });
  return out;
}

// The shipped models the fast executor runs: those of the section 3 core, without control flow.
inline std::vector<std::shared_ptr<const Program>> core_models() {
  auto out = shipped_models();
  std::erase_if(out, [](const auto& p) { return p->has_control_flow(); });
  return out;
}

// The text of each fetched output in a state: "y=B".
inline std::string outputs_text(const Program& p, const State& s) {
  std::string out;
  for (const auto& [fetch, c] : outputs(p, s)) out += (out.empty() ? "" : " ") + fetch + "=" + content_to_string(p, c);
  return out;
}

// The state the steps of `schedule` (T-SCHEDULE) reach from the initial state; a refused step fails the test.
inline State run(const Semantics& sem, const std::string& schedule) {
  State s = sem.initial();
  const auto why = replay(sem, s, parse_schedule(sem, schedule));
  INFO(why.value_or(""));
  REQUIRE_FALSE(why.has_value());
  return s;
}

// Every run's outputs over every schedule, by depth-first enumeration of the
// states (each visited once).
inline void all_outputs(const Semantics& sem, const State& s, std::set<std::string>& out,
                        std::unordered_set<State>& seen) {
  if (!seen.insert(s).second) return;
  const auto enabled = sem.enabled_transitions(s);
  if (enabled.empty()) out.insert(outputs_text(sem.program(), s));
  for (auto t : enabled)
    for (const auto& next : sem.fire(s, t)) all_outputs(sem, next, out, seen);
}
inline void all_outputs(const Semantics& sem, const State& s, std::set<std::string>& out) {
  std::unordered_set<State> seen;
  all_outputs(sem, s, out, seen);
}

}  // namespace tfsem::test
