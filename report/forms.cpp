#include "report/forms.hpp"

#include "formats/json/graph_json.hpp"

#include <cstdio>
#include <sstream>

namespace tfsem::report {

const char* verdict(bool complete, bool violated, bool one_outcome) {
  return !complete ? "incomplete" : violated ? "violation" : one_outcome ? "deterministic" : "nondeterministic";
}

std::string verdict_line(std::string_view word) { return "verdict: " + std::string(word) + "\n"; }

std::vector<std::string> uninterpreted_stateful(const Program& p) {
  std::vector<std::string> out;
  for (const auto& n : p.nodes())
    if (n.op.fn != nullptr && n.op.fn->uninterpreted && n.op.fn->stateful)
      out.push_back(std::string(n.name().view()) + " (" + std::string(n.op.fn->name) + ")");
  return out;
}

std::vector<std::string> unassumable(const Program& p) {
  std::vector<std::string> out;
  for (std::uint32_t i = 0; i < p.nodes().size(); ++i) {
    const auto& n = p.nodes()[i];
    if (n.op.kind == Op::Kind::function && n.op.fn->uninterpreted && n.op.fn->stateful)
      if (const auto x = p.variable_of(NodeId(i)))
        out.push_back(std::string(n.name().view()) + " (" + std::string(n.op.fn->name) + ") takes variable " +
                      p.variable(*x).name);
  }
  return out;
}

std::string unassumable_lines(const std::vector<std::string>& ops) {
  std::string out;
  for (const auto& o : ops)
    out += "INCOMPLETE: uninterpreted stateful op " + o + ", whose value it may change unseen: no verdict can assume "
           "it does not interact (I-STATEFUL-VAR)\n";
  return out;
}

namespace {

std::string assuming(std::size_t n) {
  return "assuming the " + std::to_string(n) + " uninterpreted stateful op" + (n == 1 ? "" : "s") +
         " below do" + (n == 1 ? "es" : "") + " not interact";
}

}  // namespace

std::string verdict_line(std::string_view word, const std::vector<std::string>& assumed) {
  if (assumed.empty() || word == "incomplete") return verdict_line(word);
  auto out = "verdict: " + std::string(word) + ", " + assuming(assumed.size()) + "\n";
  for (const auto& a : assumed) out += "uninterpreted: " + a + " | stateful, its state not modelled\n";
  return out;
}

void add_assumptions(nlohmann::json& j, const std::vector<std::string>& assumed) {
  if (assumed.empty()) return;
  j["assuming"] = assuming(assumed.size());
  j["uninterpreted"] = assumed;
}

std::string stopped_line(std::string_view by, std::string_view where) {
  const std::string what = by == "out of memory" ? "out of memory" : "stopped by " + std::string(by);
  return "INCOMPLETE: " + what + std::string(where) + "\n";
}

nlohmann::json stopped_json(std::string_view by, std::string_view phase) {
  nlohmann::json out = {{"complete", false}, {"stopped_by", by}};
  if (!phase.empty()) out["phase"] = phase;
  return out;
}

std::string count_line(std::string_view key, std::size_t n, bool complete) {
  return std::string(key) + ": " + std::to_string(n) + (complete ? "" : " (at least)") + "\n";
}

std::string fix_line(std::string_view what, std::string_view outcome) {
  return "fix: " + std::string(what) + " | verified deterministic: " + std::string(outcome) + "\n";
}

std::string no_fix_line() { return "fix: none found\n"; }

nlohmann::json path_condition_json(const PathCondition& path) {
  auto out = nlohmann::json::array();
  for (const auto& l : path) out.push_back({{"term", l.term.to_string()}, {"value", l.value}});
  return out;
}

std::string SharedTerms::lines(std::string_view indent) const {
  std::string out;
  for (const auto& d : names_.definitions()) out += std::string(indent) + "term: " + d.name + " = " + d.text + "\n";
  return out;
}

void SharedTerms::add_to(nlohmann::json& j) const {
  if (!names_.definitions().empty()) j["terms"] = format::terms_to_json(names_);
}

std::string counters_text(const explorer::Counters& c, double seconds) {
  std::ostringstream out;
  out << "states-stored: " << c.states_stored << "\nstates-matched: " << c.states_matched << "\ntransitions: " << c.transitions
      << "\nterminal-states: " << c.terminal_states << "\nbehaviours-explored: " << c.behaviours
      << "\ntransitions-pruned: " << c.transitions_pruned << "\nfirings: " << c.firings << "\n";
  char t[32];
  std::snprintf(t, sizeof t, "%.3f", seconds);
  out << "time: " << t << "s\n";
  return out.str();
}

std::string memory_line(std::uint64_t peak_bytes, const MemoryBound& max) {
  return "memory: peak " + std::to_string(peak_bytes >> 20) + " MiB | max-memory " + std::to_string(max.bytes >> 20) +
         " MiB (" + max.source + ")\n";
}

nlohmann::json max_memory_json(const MemoryBound& max) { return {{"bytes", max.bytes}, {"from", max.source}}; }

nlohmann::json counters_json(const explorer::Counters& c) {
  return {{"states_stored", c.states_stored},         {"states_matched", c.states_matched},
          {"transitions", c.transitions},             {"terminal_states", c.terminal_states},
          {"behaviours_explored", c.behaviours},      {"transitions_pruned", c.transitions_pruned},
          {"firings", c.firings}};
}

std::string ranks_text(const std::vector<explorer::distributed::RankReport>& ranks) {
  std::ostringstream out;
  for (std::size_t k = 0; k < ranks.size(); ++k)
    out << "rank: " << k << " | states " << ranks[k].states << " | sent " << ranks[k].bytes_sent << " bytes | received "
        << ranks[k].bytes_received << " bytes | idle " << ranks[k].idle_seconds << "s\n";
  return out.str();
}

nlohmann::json ranks_json(const std::vector<explorer::distributed::RankReport>& ranks) {
  auto out = nlohmann::json::array();
  for (std::size_t r = 0; r < ranks.size(); ++r)
    out.push_back({{"rank", r}, {"states", ranks[r].states}, {"bytes_sent", ranks[r].bytes_sent},
                   {"bytes_received", ranks[r].bytes_received}, {"idle_seconds", ranks[r].idle_seconds},
                   {"memory_bytes", ranks[r].memory_bytes}});
  return out;
}

}  // namespace tfsem::report
