// tfsem check FILE: every outcome, the verdict, every race, the counters.
// One fact per line; the line keys are published and never renamed.
#include "cli/commands.hpp"
#include "cli/exit_codes.hpp"
#include "cli/graph_options.hpp"
#include "cli/output.hpp"
#include "cli/schedule_file.hpp"
#include "cli/search_options.hpp"
#include "cli/sessions.hpp"
#include "explorer/explore.hpp"
#include "explorer/fix.hpp"
#include "semantics/diagnostic.hpp"
#include "formats/json/graph_json.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <memory>

namespace tfsem::cli {

namespace {

struct CheckOptions {
  GraphOptions graph;
  SearchOptions search;
  bool json = false;
  std::string witness_dir;
  bool no_fix = false;
  std::size_t fix_budget = 32;
  std::string fixed_graph;
  std::vector<std::string> runs;  // a session: one --run per session.run
  unsigned repeats = 1;           // --runs K
};

// Under --por=none every interleaving is explored; under a reduction, only
// the behaviours it keeps.
const char* paths_key(const explorer::Result& r) { return r.por == explorer::Por::none ? "interleavings" : "behaviours"; }

// A violation in any outcome is a defect of the graph, whatever the number of outcomes.
const char* verdict(const explorer::Result& r) {
  return !r.complete ? "incomplete" : r.violated() ? "violation" : r.deterministic() ? "deterministic" : "nondeterministic";
}

std::string violation_text(const Semantics& sem, const Violation& v) {
  const auto& p = sem.program();
  const auto at = transition_to_string(p, sem.contexts(), v.at);
  return std::string(violation_name(v.kind)) + " | " + at + " | " +
         (v.kind == Violation::Kind::merge_two_live
              ? "Merge " + at + " took one live input, and input '" + p.edge(v.edge).name + "' holds another"
              : "Exit " + at + " holds a live value after its loop delivered one");
}

// A node's name in a file name: a '/' (the nodes of a function's body have
// one) becomes '_'.
std::string file_part(std::string_view node) {
  std::string name(node);
  std::replace(name.begin(), name.end(), '/', '_');
  return name;
}

// The fixes found, and whether an interrupt stopped the search for them.
struct Fixes {
  std::vector<explorer::Fix> found;
  bool stopped = false;
};

nlohmann::json check_json(const Semantics& sem, const explorer::Result& r, const Fixes& fixes,
                          const std::vector<explorer::distributed::RankReport>& ranks) {
  using nlohmann::json;
  const auto& p = sem.program();
  auto name = [&](Transition t) { return transition_to_string(p, sem.contexts(), t); };
  json outcomes = json::array(), races = json::array();
  for (const auto& o : r.outcomes) {
    json stuck = json::array(), violations = json::array();
    for (const auto& s : o.stuck) stuck.push_back(name(s.transition));
    for (const auto& v : o.violations)
      violations.push_back({{"kind", violation_name(v.kind)}, {"at", name(v.at)}, {"edge", p.edge(v.edge).name}});
    outcomes.push_back({{"outputs", format::outputs_to_json(p, o.outputs)}, {"VarValue", format::var_value_to_json(p, o.var_value)},
                        {"stuck", stuck}, {"violations", violations}, {paths_key(r), o.paths},
                        {"witness", schedule_to_string(sem, o.witness)}});
  }
  for (const auto& race : r.races)
    races.push_back({{"nodes", {name(race.first), name(race.second)}},
                     {"variable", p.variable(race.var).name}, {"harmful", race.harmful},
                     {"first_then_second", schedule_to_string(sem, race.first_then_second)},
                     {"second_then_first", schedule_to_string(sem, race.second_then_first)}});
  json fix_list = json::array();
  for (const auto& f : fixes.found) {
    json edges = json::array(), loops = json::array();
    for (const auto& [a, b] : f.control_edges) edges.push_back({p.node(a).name, p.node(b).name});
    for (auto loop : f.sequential_loops) loops.push_back(p.frame(loop).name);
    fix_list.push_back({{"control_edges", edges}, {"sequential_loops", loops}, {"outcome", explorer::outcome_text(sem, f.outcome)}});
  }
  const auto& c = r.counters;
  nlohmann::json out = {{"graph", p.name()}, {"hash", p.hash_hex()}, {"por", explorer::por_name(r.por)},
          {"complete", r.complete}, {"stopped_by", r.stopped_by},
          {"outcomes", outcomes},
          {"verdict", verdict(r)},
          {"races", races},
          {"fixes", fix_list},
          {"fixes_complete", !fixes.stopped},
          {"counters", {{"states_stored", c.states_stored}, {"states_matched", c.states_matched},
                        {"transitions", c.transitions}, {"terminal_states", c.terminal_states},
                        {"behaviours_explored", c.behaviours}, {"transitions_pruned", c.transitions_pruned}}},
          {"seconds", r.seconds}};
  if (!ranks.empty()) out["ranks"] = ranks_json(ranks);
  return out;
}

void print_text(const Semantics& sem, const explorer::Result& r, const Fixes& fixes, bool fixing,
                const std::vector<explorer::distributed::RankReport>& ranks) {
  const auto& p = sem.program();
  std::cout << "graph: " << p.name() << "\nhash: " << p.hash_hex() << "\npor: " << explorer::por_name(r.por) << "\n";
  if (!r.complete) std::cout << "INCOMPLETE: stopped by " << r.stopped_by << "\n";
  if (fixes.stopped) std::cout << "INCOMPLETE: stopped by interrupt in the search for fixes\n";
  std::cout << "outcomes: " << r.outcomes.size() << (r.complete ? "" : " (at least)") << "\n";
  for (const auto& o : r.outcomes) {
    std::cout << "outcome: " << explorer::outcome_text(sem, o) << " | " << paths_key(r) << " " << o.paths << " | witness "
              << schedule_to_string(sem, o.witness) << "\n";
    for (const auto& v : o.violations) std::cout << "violation: " << violation_text(sem, v) << "\n";
  }
  std::cout << "verdict: " << verdict(r) << "\n";
  for (const auto& race : r.races) {
    const auto a = transition_to_string(p, sem.contexts(), race.first), b = transition_to_string(p, sem.contexts(), race.second);
    std::cout << "race: " << a << " " << b << " | variable " << p.variable(race.var).name << " | "
              << (race.harmful ? "harmful" : "benign") << " | " << a << " first " << schedule_to_string(sem, race.first_then_second)
              << " | " << b << " first " << schedule_to_string(sem, race.second_then_first) << "\n";
  }
  for (const auto& f : fixes.found)
    std::cout << "fix: " << explorer::fix_text(p, f) << " | verified deterministic: " << explorer::outcome_text(sem, f.outcome)
              << "\n";
  if (fixing && r.complete && (!r.deterministic() || r.violated()) && fixes.found.empty() && !fixes.stopped)
    std::cout << "fix: none found\n";
  const auto& c = r.counters;
  std::cout << "states-stored: " << c.states_stored << "\nstates-matched: " << c.states_matched
            << "\ntransitions: " << c.transitions << "\nterminal-states: " << c.terminal_states
            << "\nbehaviours-explored: " << c.behaviours << "\ntransitions-pruned: " << c.transitions_pruned << "\n";
  char t[32];
  std::snprintf(t, sizeof t, "%.3f", r.seconds);
  std::cout << "time: " << t << "s\n";
  for (std::size_t k = 0; k < ranks.size(); ++k)
    std::cout << "rank: " << k << " | states " << ranks[k].states << " | sent " << ranks[k].bytes_sent << " bytes | received "
              << ranks[k].bytes_received << " bytes | idle " << ranks[k].idle_seconds << "s\n";
}

int run_check(const CheckOptions& o) {
  if (!o.runs.empty() || o.repeats > 1) {
    if (o.search.distributed) throw InputError("", "--distributed", "", "a session of runs is checked by one process");
    if (!o.fixed_graph.empty()) throw InputError("", "--run", "", "a session of runs writes no fixed graph");
    std::vector<RunSpec> runs;
    for (const auto& r : o.runs) runs.push_back(parse_run(r));
    if (runs.empty()) runs.push_back({"", o.graph.fetches});
    return check_session(o.graph, o.search, runs, o.repeats, o.no_fix ? 0 : o.fix_budget, o.witness_dir, o.json);
  }
  const auto sem = o.graph.load();
  const auto& p = sem.program();
  const auto opts = o.search.make();
  std::vector<explorer::distributed::RankReport> ranks;
  const auto result = o.search.explore(sem, opts, &ranks);
  end_progress(opts, result);
  // Rank 0 reports, and searches for fixes on its own (the candidates are explored by one process).
  if (!o.search.reports()) return o.search.exit_code(kSuccess);
  Fixes fixes;
  if (!o.no_fix) {
    fixes.found = explorer::suggest_fixes(sem, result, {opts, o.fix_budget});
    // The explorations verifying fixes stop on an interrupt too; the outcomes are complete, the fixes not.
    fixes.stopped = result.complete && opts.limits.stop && opts.limits.stop->load();
  }
  if (o.json) std::cout << check_json(sem, result, fixes, ranks).dump(2) << "\n";
  else print_text(sem, result, fixes, !o.no_fix, ranks);
  if (!o.fixed_graph.empty() && !fixes.found.empty())
    write_text(format::program_to_json(fixes.found.front().fixed).dump(2) + "\n", o.fixed_graph);
  if (!o.witness_dir.empty()) {
    std::filesystem::create_directories(o.witness_dir);
    for (std::size_t k = 0; k < result.outcomes.size(); ++k)
      write_schedule_file(sem, o.witness_dir + "/outcome-" + std::to_string(k + 1) + ".schedule", {result.outcomes[k].witness},
                          "witness of outcome " + explorer::outcome_text(sem, result.outcomes[k]));
    for (std::size_t k = 0; k < result.races.size(); ++k) {
      const auto& race = result.races[k];
      const auto base = o.witness_dir + "/race-" + std::to_string(k + 1);
      write_schedule_file(sem, base + "-" + file_part(p.node(race.first.node).name) + "-first.schedule", {race.first_then_second},
                          "race on " + p.variable(race.var).name);
      write_schedule_file(sem, base + "-" + file_part(p.node(race.second.node).name) + "-first.schedule", {race.second_then_first},
                          "race on " + p.variable(race.var).name);
    }
  }
  if (!result.complete || fixes.stopped) return o.search.exit_code(kIncomplete);
  return o.search.exit_code(result.deterministic() && !result.violated() ? kSuccess : kPropertyViolated);
}

}  // namespace

Command add_check(CLI::App& app) {
  auto* sub = app.add_subcommand("check", "explore every behaviour: outcomes, verdict, races, witnesses");
  auto o = std::make_shared<CheckOptions>();
  o->graph.add_to(*sub);
  o->search.add_to(*sub);
  o->search.add_distributed(*sub);
  sub->add_flag("--json", o->json, "print the report as JSON");
  sub->add_flag("--no-fix", o->no_fix, "do not search for control edges that make the graph deterministic");
  sub->add_option("--fix-budget", o->fix_budget, "explorations the fix search may spend")->capture_default_str();
  sub->add_option("--fixed-graph", o->fixed_graph, "write the graph with the first suggested fix applied (JSON)");
  sub->add_option("--run", o->runs,
                  "a session: each --run is one session.run, fetch=NAMES;targets=NAMES (or a list of fetches), the graph "
                  "pruned to them; VarValue persists from run to run, and an outcome is the sequence of their outputs")
      ->expected(1)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  sub->add_option("--runs", o->repeats, "repeat the session's runs (or the one run --fetch makes) K times")
      ->check(CLI::Range(1U, 1000U));
  sub->add_option("--witness-dir", o->witness_dir,
                  "write each outcome's and each race order's witness schedule there, for tfsem trace --schedule-file "
                  "(a session: each outcome's, for trace with the same --run options)");
  return {sub, [o] { return run_check(*o); }};
}

}  // namespace tfsem::cli
