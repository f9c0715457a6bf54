// The conformance report (conform.hpp), in the forms of every report (report/forms.hpp).
#include "conformance/conform.hpp"

#include "report/forms.hpp"

#include <nlohmann/json.hpp>

#include <sstream>

namespace tfsem::conform {

namespace {

const char* verdict(const Report& r, bool json) {
  return !r.complete() ? "incomplete" : r.conforms() ? "conforms" : json ? "does not conform" : "DOES NOT CONFORM";
}

}  // namespace

std::string report_text(const Report& r, std::size_t max_failures) {
  const auto& sem = *r.semantics;
  std::ostringstream out;
  out << "graph: " << r.graph << "\nreference-hash: " << r.reference_hash << "\nexecutor-hash: " << r.executor_hash << "\n";
  if (!r.reference.complete) out << report::stopped_line(r.reference.stopped_by, " in the reference search");
  else if (!r.stopped_by.empty()) out << report::stopped_line(r.stopped_by, " after " + std::to_string(r.runs) + " executor runs");
  out << report::count_line("reference-outcomes", r.reference.outcomes.size(), r.reference.complete)
      << "executor-runs: " << r.runs << "\n";
  for (std::size_t i = 0; i < r.reference.outcomes.size(); ++i)
    out << "outcome: " << explorer::outcome_text(sem, r.reference.outcomes[i]) << " | allowed | "
        << (r.seen[i] ? "seen " + std::to_string(r.seen[i]) : std::string("unseen")) << "\n";
  if (!r.reference.complete) {
    const auto& c = r.reference.counters;
    out << "reference-states-stored: " << c.states_stored << "\nreference-transitions: " << c.transitions
        << "\nreference-terminal-states: " << c.terminal_states << "\n" << report::verdict_line(verdict(r, false));
    return out.str();
  }
  for (const auto& [text, count] : r.unexpected) out << "outcome: " << text << " | NOT ALLOWED | seen " << count << "\n";
  out << "traces-replayed: " << r.replayed << "\n";
  for (std::size_t i = 0; i < r.failures.size() && i < max_failures; ++i) {
    const auto& f = r.failures[i];
    out << "FAIL: run " << f.run << ": " << f.what << " | output " << f.outcome << " | schedule "
        << (f.schedule.empty() ? "(none)" : schedule_to_string(sem, f.schedule)) << "\n";
  }
  if (r.failures.size() > max_failures) out << "FAIL: ... and " << r.failures.size() - max_failures << " more\n";
  out << report::verdict_line(verdict(r, false));
  return out.str();
}

std::string report_json(const Report& r) {
  const auto& sem = *r.semantics;
  using nlohmann::json;
  json outcomes = json::array(), unexpected = json::array(), failures = json::array();
  for (std::size_t i = 0; i < r.reference.outcomes.size(); ++i)
    outcomes.push_back({{"outcome", explorer::outcome_text(sem, r.reference.outcomes[i])}, {"seen", r.seen[i]}});
  for (const auto& [text, count] : r.unexpected) unexpected.push_back({{"outcome", text}, {"seen", count}});
  for (const auto& f : r.failures)
    failures.push_back({{"run", f.run}, {"what", f.what}, {"output", f.outcome}, {"schedule", schedule_to_string(sem, f.schedule)}});
  return json{{"graph", r.graph},
              {"reference_hash", r.reference_hash},
              {"executor_hash", r.executor_hash},
              {"complete", r.complete()},
              {"stopped_by", r.reference.complete ? r.stopped_by : r.reference.stopped_by},
              {"runs", r.runs},
              {"reference_outcomes", outcomes},
              {"not_allowed", unexpected},
              {"traces_replayed", r.replayed},
              {"failures", failures},
              {"verdict", verdict(r, true)}}
      .dump(2);
}

}  // namespace tfsem::conform
