#include "report/runs.hpp"

#include "formats/json/graph_json.hpp"
#include "report/forms.hpp"

#include <algorithm>
#include <sstream>

namespace tfsem::report {

namespace {

std::string values_text(const Program& p, const std::vector<Tensor>& values) {
  std::string out;
  for (std::size_t x = 0; x < values.size(); ++x)
    out += (out.empty() ? "" : "; ") + p.variable(VarId(x)).name + "=" + values[x].to_string();
  return out;
}

// "run 2" or "runs 2, 3": the runs whose graph is run k's.
std::string runs_of_graph(const std::vector<std::shared_ptr<const Program>>& programs, std::size_t k) {
  std::vector<std::string> runs;
  for (std::size_t j = 0; j < programs.size(); ++j)
    if (programs[j]->hash() == programs[k]->hash()) runs.push_back(std::to_string(j + 1));
  std::string out = runs.size() == 1 ? "run " : "runs ";
  for (std::size_t i = 0; i < runs.size(); ++i) out += (i ? ", " : "") + runs[i];
  return out;
}

// "run 2: a/Assign a_1/Assign | variable a/v | harmful".
std::string race_text(const explorer::RunRace& race) {
  return "run " + std::to_string(race.run + 1) + ": " + race.first + " " + race.second + " | variable " + race.variable + " | " +
         (race.harmful ? "harmful" : "benign");
}

// A verified fix's outcomes, one per path condition.
std::string fix_outcomes_text(const Program& last, const explorer::RunFix& f) {
  std::string out;
  for (const auto& o : f.outcomes) out += (out.empty() ? "" : " || ") + runs_outcome_text(last, o);
  return out;
}

// Each item `of` gives for every run's graph, once.
template <class Of>
std::vector<std::string> every_run(const std::vector<std::shared_ptr<const Program>>& programs, Of of) {
  std::vector<std::string> out;
  for (const auto& p : programs)
    for (auto& a : of(*p))
      if (std::find(out.begin(), out.end(), a) == out.end()) out.push_back(std::move(a));
  return out;
}

// I-STATEFUL: the uninterpreted stateful ops of every run's graph, each once.
std::vector<std::string> assumed(const std::vector<std::shared_ptr<const Program>>& programs) {
  return every_run(programs, uninterpreted_stateful);
}

// I-STATEFUL-VAR: those that take a variable, which leave the verdict incomplete.
std::vector<std::string> unassumed(const std::vector<std::shared_ptr<const Program>>& programs) {
  return every_run(programs, unassumable);
}

const char* verdict_of(const RunsReport& report) {
  const auto& r = report.result;
  return verdict(r.complete() && unassumed(report.programs).empty(), r.violated, explorer::one_per_path(r.outcomes));
}

}  // namespace

std::string runs_outcome_text(const Program& last, const explorer::RunsOutcome& o) {
  std::string out;
  for (std::size_t k = 0; k < o.runs.size(); ++k) out += "run " + std::to_string(k + 1) + ": " + (o.runs[k].empty() ? "-" : o.runs[k]) + " | ";
  return out + values_text(last, o.var_value);
}

std::string runs_text(const RunsReport& report) {
  const auto& r = report.result;
  const auto& programs = report.programs;
  const auto& last = *programs.back();
  std::ostringstream out;
  out << "graph: " << last.name() << "\nruns: " << report.labels.size() << "\n";
  for (std::size_t k = 0; k < report.labels.size(); ++k)
    out << "run: " << k + 1 << " | " << (report.labels[k].text.empty() ? "-" : report.labels[k].text) << " | hash "
        << programs[k]->hash_hex() << "\n";
  out << "por: " << report.por << "\n";
  if (!r.complete()) out << stopped_line(r.stopped_by);
  out << unassumable_lines(unassumed(programs));  // I-STATEFUL-VAR
  out << count_line("outcomes", r.outcomes.size(), r.complete());
  for (const auto& o : r.outcomes) {
    std::string witness;
    for (const auto& w : o.witnesses) witness += (witness.empty() ? "" : ";") + w;
    out << "outcome: " << runs_outcome_text(last, o) << " | behaviours " << o.paths << " | witness " << witness << "\n";
  }
  out << verdict_line(verdict_of(report), assumed(programs));
  for (const auto& race : r.races) out << "race: " << race_text(race) << "\n";
  for (const auto& f : r.fixes) out << fix_line(runs_of_graph(programs, f.run) + ": " + f.text, fix_outcomes_text(last, f));
  if (report.fixes_searched && r.complete() && !r.deterministic() && r.fixes.empty()) out << no_fix_line();
  out << counters_text(r.counters, r.seconds);
  return out.str();
}

nlohmann::json runs_json(const RunsReport& report) {
  using nlohmann::json;
  const auto& r = report.result;
  const auto& programs = report.programs;
  const auto& last = *programs.back();
  json run_list = json::array(), outcome_list = json::array(), race_list = json::array(), fix_list = json::array();
  for (std::size_t k = 0; k < report.labels.size(); ++k)
    run_list.push_back({{"fetch", report.labels[k].fetches}, {"hash", programs[k]->hash_hex()}});
  for (const auto& o : r.outcomes) {
    json outcome = {{"runs", o.runs}, {"VarValue", format::var_value_to_json(last, o.var_value)},
                    {"behaviours", o.paths}, {"witness", o.witnesses}};
    if (!o.path.empty()) outcome["path_condition"] = path_condition_json(o.path);
    outcome_list.push_back(std::move(outcome));
  }
  for (const auto& race : r.races) race_list.push_back(race_text(race));
  for (const auto& f : r.fixes)
    fix_list.push_back({{"runs", runs_of_graph(programs, f.run)}, {"fix", f.text}, {"outcome", fix_outcomes_text(last, f)}});
  json out = {{"graph", last.name()},
          {"runs", run_list},
          {"por", report.por},
          {"complete", r.complete()},
          {"stopped_by", r.stopped_by},
          {"outcomes", outcome_list},
          {"verdict", verdict_of(report)},
          {"races", race_list},
          {"fixes", fix_list},
          {"counters", counters_json(r.counters)},
          {"seconds", r.seconds}};
  if (const auto ops = unassumed(programs); !ops.empty()) out["unassumable"] = ops;  // I-STATEFUL-VAR
  else if (r.complete()) add_assumptions(out, assumed(programs));  // I-STATEFUL
  return out;
}

}  // namespace tfsem::report
