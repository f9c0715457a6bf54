// tfsem check FILE: every outcome, the verdict, every race, the counters.
// One fact per line; the line keys are published and never renamed.
#include "cli/commands.hpp"
#include "cli/exit_codes.hpp"
#include "cli/graph_options.hpp"
#include "cli/schedule_file.hpp"
#include "explorer/explore.hpp"
#include "semantics/format/graph_json.hpp"

#include <nlohmann/json.hpp>

#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <iostream>
#include <memory>

namespace tfsem::cli {

namespace {

struct CheckOptions {
  GraphOptions graph;
  std::uint64_t max_states = 50'000'000;
  std::uint64_t max_memory_mib = 16384;
  double timeout_s = 0;
  bool json = false;
  std::string witness_dir;
};

const char* verdict(const explorer::Result& r) {
  return !r.complete ? "incomplete" : r.deterministic() ? "deterministic" : "nondeterministic";
}

nlohmann::json check_json(const Program& p, const explorer::Result& r) {
  using nlohmann::json;
  json outcomes = json::array(), races = json::array();
  for (const auto& o : r.outcomes) {
    json outs = json::object(), vars = json::object(), stuck = json::array();
    for (const auto& [f, c] : o.outputs) outs[f] = format::content_to_json(p, c);
    for (std::size_t x = 0; x < o.var_value.size(); ++x) vars[p.variable(VarId(x)).name] = format::tensor_to_json(o.var_value[x]);
    for (const auto& s : o.stuck) stuck.push_back(p.node(s.node).name);
    outcomes.push_back({{"outputs", outs}, {"VarValue", vars}, {"stuck", stuck}, {"interleavings", o.interleavings},
                        {"witness", schedule_to_string(p, o.witness)}});
  }
  for (const auto& race : r.races)
    races.push_back({{"nodes", {p.node(race.first).name, p.node(race.second).name}},
                     {"variable", p.variable(race.var).name}, {"harmful", race.harmful},
                     {"first_then_second", schedule_to_string(p, race.first_then_second)},
                     {"second_then_first", schedule_to_string(p, race.second_then_first)}});
  const auto& c = r.counters;
  return {{"graph", p.name()}, {"hash", p.hash_hex()}, {"complete", r.complete}, {"stopped_by", r.stopped_by},
          {"outcomes", outcomes},
          {"verdict", verdict(r)},
          {"races", races},
          {"counters", {{"states_stored", c.states_stored}, {"states_matched", c.states_matched},
                        {"transitions", c.transitions}, {"terminal_states", c.terminal_states}}},
          {"seconds", r.seconds}};
}

void print_text(const Program& p, const explorer::Result& r) {
  std::cout << "graph: " << p.name() << "\nhash: " << p.hash_hex() << "\n";
  if (!r.complete) std::cout << "INCOMPLETE: stopped by " << r.stopped_by << "\n";
  std::cout << "outcomes: " << r.outcomes.size() << (r.complete ? "" : " (at least)") << "\n";
  for (const auto& o : r.outcomes)
    std::cout << "outcome: " << explorer::outcome_text(p, o) << " | interleavings " << o.interleavings << " | witness "
              << schedule_to_string(p, o.witness) << "\n";
  std::cout << "verdict: " << verdict(r)
            << "\n";
  for (const auto& race : r.races) {
    const auto &a = p.node(race.first).name, &b = p.node(race.second).name;
    std::cout << "race: " << a << " " << b << " | variable " << p.variable(race.var).name << " | "
              << (race.harmful ? "harmful" : "benign") << " | " << a << " first " << schedule_to_string(p, race.first_then_second)
              << " | " << b << " first " << schedule_to_string(p, race.second_then_first) << "\n";
  }
  const auto& c = r.counters;
  std::cout << "states-stored: " << c.states_stored << "\nstates-matched: " << c.states_matched
            << "\ntransitions: " << c.transitions << "\nterminal-states: " << c.terminal_states << "\n";
  char t[32];
  std::snprintf(t, sizeof t, "%.3f", r.seconds);
  std::cout << "time: " << t << "s\n";
}

int run_check(const CheckOptions& o) {
  const auto sem = o.graph.load();
  const auto& p = sem.program();
  explorer::ExploreOptions opts;
  opts.limits.max_states = o.max_states;
  opts.limits.max_memory_bytes = o.max_memory_mib << 20;
  if (o.timeout_s > 0) opts.limits.timeout = std::chrono::duration<double>(o.timeout_s);
  if (isatty(STDERR_FILENO))
    opts.progress = [](const explorer::Progress& pr) {
      if (pr.seconds < 1) return;
      std::fprintf(stderr, "\r%llu states, %.0f states/s, %llu MiB   ", static_cast<unsigned long long>(pr.states),
                   static_cast<double>(pr.states) / pr.seconds, static_cast<unsigned long long>(pr.memory_bytes >> 20));
    };
  const auto result = explorer::explore(sem, opts);
  if (opts.progress && result.seconds >= 1) std::fprintf(stderr, "\n");
  if (o.json) std::cout << check_json(p, result).dump(2) << "\n";
  else print_text(p, result);
  if (!o.witness_dir.empty()) {
    std::filesystem::create_directories(o.witness_dir);
    for (std::size_t k = 0; k < result.outcomes.size(); ++k)
      write_schedule_file(p, o.witness_dir + "/outcome-" + std::to_string(k + 1) + ".schedule", {result.outcomes[k].witness},
                          "witness of outcome " + explorer::outcome_text(p, result.outcomes[k]));
    for (std::size_t k = 0; k < result.races.size(); ++k) {
      const auto& race = result.races[k];
      const auto base = o.witness_dir + "/race-" + std::to_string(k + 1);
      write_schedule_file(p, base + "-" + p.node(race.first).name + "-first.schedule", {race.first_then_second},
                          "race on " + p.variable(race.var).name);
      write_schedule_file(p, base + "-" + p.node(race.second).name + "-first.schedule", {race.second_then_first},
                          "race on " + p.variable(race.var).name);
    }
  }
  if (!result.complete) return kIncomplete;
  return result.deterministic() ? kSuccess : kPropertyViolated;
}

}  // namespace

Command add_check(CLI::App& app) {
  auto* sub = app.add_subcommand("check", "explore every behaviour: outcomes, verdict, races, witnesses");
  auto o = std::make_shared<CheckOptions>();
  o->graph.add_to(*sub);
  sub->add_option("--max-states", o->max_states, "stop, INCOMPLETE, after storing this many states")->capture_default_str();
  sub->add_option("--max-memory", o->max_memory_mib, "stop, INCOMPLETE, above this many MiB of search memory")->capture_default_str();
  sub->add_option("--timeout", o->timeout_s, "stop, INCOMPLETE, after this many seconds (0: none)");
  sub->add_flag("--json", o->json, "print the report as JSON");
  sub->add_option("--witness-dir", o->witness_dir,
                  "write each outcome's and each race order's witness schedule there, for tfsem trace --schedule-file");
  return {sub, [o] { return run_check(*o); }};
}

}  // namespace tfsem::cli
