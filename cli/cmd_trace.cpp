// tfsem trace FILE: fires nodes one at a time and prints each state as the
// paper's figures show them.
#include "cli/commands.hpp"
#include "cli/exit_codes.hpp"
#include "cli/graph_options.hpp"
#include "cli/schedule_file.hpp"
#include "cli/search_options.hpp"
#include "cli/sessions.hpp"
#include "semantics/diagnostic.hpp"
#include "formats/json/graph_json.hpp"

#include <nlohmann/json.hpp>

#include <iostream>
#include <memory>

namespace tfsem::cli {

namespace {

struct TraceOptions {
  GraphOptions graph;
  std::string schedule, schedule_file;
  std::optional<std::uint64_t> seed;
  int runs = 1;
  std::vector<std::string> session;  // --run: a session, each run's graph pruned to its fetches
  Bounds bounds{};
  bool json = false;
};

// Chooses the next step: from the schedule, at random, or the first enabled
// transition in topological order (the oldest context first).
std::optional<Step> next_step(const Semantics& sem, const State& s, const Schedule* schedule, std::size_t index,
                              std::optional<RandomScheduler>& random) {
  if (schedule) {
    if (index >= schedule->size()) return std::nullopt;
    const auto& step = (*schedule)[index];
    if (auto why = refuse_step(sem, s, step))
      throw InputError("T-SCHEDULE", "schedule", "step " + std::to_string(index + 1), "refused: " + *why);
    return step;
  }
  auto enabled = sem.enabled_transitions(s);
  if (enabled.empty()) return std::nullopt;
  std::vector<std::size_t> position(sem.program().nodes().size());
  const auto& order = sem.program().topological_order();
  for (std::size_t i = 0; i < order.size(); ++i) position[order[i].index()] = i;
  std::stable_sort(enabled.begin(), enabled.end(),
                   [&](Transition a, Transition b) { return position[a.node.index()] < position[b.node.index()]; });
  if (!random) return Step{enabled.front().node, enabled.front().context, 0};
  const auto t = enabled[random->below(enabled.size())];
  return Step{t.node, t.context, static_cast<std::uint32_t>(random->below(sem.fire(s, t).size()))};
}

// The frame of a context in s beyond the bounds, if any.
std::optional<FrameId> beyond(const Semantics& sem, const State& s, const Bounds& bounds) {
  for (const auto& entry : s.in_transit)
    if (const auto c = entry.first.context; sem.contexts().beyond(c, bounds)) return sem.contexts()[c].frame;
  return std::nullopt;
}

// The Semantics of each run: one graph, or with --run one per run of the
// session (the list repeated --runs times), each pruned to its fetches.
std::vector<Semantics> run_semantics(const TraceOptions& o) {
  std::vector<Semantics> out;
  if (o.session.empty()) {
    out.push_back(o.graph.load());
    return out;
  }
  std::vector<RunSpec> all;
  for (int k = 0; k < o.runs; ++k)
    for (const auto& r : o.session) all.push_back(parse_run(r));
  Options options;
  options.terms.normalize = o.graph.normalize;
  for (auto& program : session_programs(o.graph, all)) out.emplace_back(std::move(program), options);
  return out;
}

int run_trace(const TraceOptions& o) {
  const auto sems = run_semantics(o);
  std::vector<const Semantics*> of_run;
  for (const auto& sem : sems) of_run.push_back(&sem);
  std::vector<Schedule> schedules;
  if (!o.schedule.empty()) {
    std::string rest = o.schedule;
    for (std::size_t pos; (pos = rest.find(';')) != std::string::npos; rest = rest.substr(pos + 1))
      schedules.push_back(parse_schedule(*of_run[std::min(schedules.size(), sems.size() - 1)], rest.substr(0, pos)));
    schedules.push_back(parse_schedule(*of_run[std::min(schedules.size(), sems.size() - 1)], rest));
  } else if (!o.schedule_file.empty()) {
    schedules = read_schedule_file(of_run, o.schedule_file);
  }
  const bool scheduled = !o.schedule.empty() || !o.schedule_file.empty();
  const int runs = std::max({o.session.empty() ? o.runs : static_cast<int>(sems.size()), static_cast<int>(schedules.size())});
  std::optional<RandomScheduler> random;
  if (o.seed) random.emplace(*o.seed);

  const auto& last = sems.back().program();
  nlohmann::json doc{{"graph", last.name()}, {"hash", last.hash_hex()}, {"runs", nlohmann::json::array()}};
  if (!o.json) std::cout << "graph " << last.name() << " hash " << last.hash_hex() << "\n";
  State s = sems.front().initial();
  std::optional<FrameId> stopped;  // the loop or function a walk would take past its bound
  for (int r = 0; r < runs && !stopped; ++r) {
    const auto& sem = sems[std::min(static_cast<std::size_t>(r), sems.size() - 1)];
    const auto& p = sem.program();
    const auto& ctx = sem.contexts();
    auto name = [&](Transition t) { return transition_to_string(p, ctx, t); };
    if (r > 0) s = sem.next_run(s);  // S-SESSION: VarValue persists, whichever run's graph comes next
    if (!o.json && sems.size() > 1) std::cout << "graph of run " << r + 1 << ": hash " << p.hash_hex() << "\n";
    const Schedule* schedule = scheduled ? (static_cast<std::size_t>(r) < schedules.size() ? &schedules[r] : nullptr) : nullptr;
    if (scheduled && !schedule)
      throw InputError("T-SCHEDULE", "schedule", "", "the schedule has no steps for run " + std::to_string(r + 1));
    nlohmann::json jr{{"run", r + 1}, {"states", nlohmann::json::array({{{"state", format::state_to_json(p, ctx, s)}}})}};
    if (!o.json) std::cout << "run " << r + 1 << "\n  initial state\n" << state_to_string(p, ctx, s, "    ") << "\n";
    std::size_t index = 0;
    Schedule taken;
    while (auto step = next_step(sem, s, schedule, index, random)) {
      auto next = std::move(sem.fire(s, step->transition())[step->choice]);
      if (!schedule && (stopped = beyond(sem, next, o.bounds))) break;
      s = std::move(next);
      taken.push_back(*step);
      ++index;
      jr["states"].push_back({{"fire", name(step->transition())}, {"label", p.label(step->node)}, {"choice", step->choice},
                              {"state", format::state_to_json(p, ctx, s)}});
      if (!o.json)
        std::cout << "  step " << index << ": fire " << name(step->transition()) << " (" << p.label(step->node) << ")"
                  << (step->choice ? " choosing result " + std::to_string(step->choice) : "") << "\n"
                  << state_to_string(p, ctx, s, "    ") << "\n";
    }
    const bool terminal = sem.terminal(s);
    jr["schedule"] = schedule_to_string(sem, taken);
    jr["terminal"] = terminal;
    nlohmann::json stuck = nlohmann::json::array(), violations = nlohmann::json::array();
    jr["outputs"] = format::outputs_to_json(p, outputs(p, s));
    if (!o.json) {
      if (stopped)
        std::cout << "  INCOMPLETE: the next step goes past --" << bound_to_string(p, *stopped, o.bounds) << "\n";
      else if (terminal) std::cout << "  terminal state after " << index << " steps\n";
      else {
        std::cout << "  the schedule ended before a terminal state; still enabled:";
        for (auto t : sem.enabled_transitions(s)) std::cout << " " << name(t);
        std::cout << "\n";
      }
      for (const auto& [fetch, c] : outputs(p, s)) std::cout << "  output " << fetch << " = " << content_to_string(p, c) << "\n";
    }
    if (terminal) {
      for (const auto& st : sem.stuck(s)) {
        nlohmann::json why = nlohmann::json::array();
        for (const auto& b : st.waiting_on) why.push_back(b.reason);
        stuck.push_back({{"node", name(st.transition)}, {"waiting_on", why}});
        if (!o.json) {
          std::cout << "  stuck node " << name(st.transition) << ":";
          for (const auto& b : st.waiting_on) std::cout << " " << b.reason << ";";
          std::cout << "\n";
        }
      }
      for (const auto& v : sem.violations(s)) {
        violations.push_back({{"kind", violation_name(v.kind)}, {"at", name(v.at)}, {"edge", p.edge(v.edge).name}});
        if (!o.json)
          std::cout << "  violation " << violation_name(v.kind) << " at " << name(v.at) << ": edge '" << p.edge(v.edge).name
                    << "' holds a second live value\n";
      }
    }
    jr["stuck"] = stuck;
    jr["violations"] = violations;
    if (stopped) jr["stopped_by"] = bound_to_string(p, *stopped, o.bounds);
    doc["runs"].push_back(std::move(jr));
  }
  doc["VarValue"] = format::var_value_to_json(last, s.var_value);
  if (o.json) std::cout << doc.dump(2) << "\n";
  else {
    std::cout << "final VarValue:";
    for (std::size_t x = 0; x < s.var_value.size(); ++x)
      std::cout << " " << last.variable(VarId(x)).name << " = " << s.var_value[x].to_string();
    std::cout << "\n";
  }
  return stopped ? kIncomplete : kSuccess;
}

}  // namespace

Command add_trace(CLI::App& app) {
  auto* sub = app.add_subcommand("trace", "fire nodes one at a time and print every state, as the paper's figures do");
  auto o = std::make_shared<TraceOptions>();
  o->graph.add_to(*sub);
  auto* sched = sub->add_option("--schedule", o->schedule,
                                "steps to fire: NODE[/CHOICE] or NODE[FRAME:ITERATION,...][/CHOICE], ...; runs separated by ';'");
  auto* file = sub->add_option("--schedule-file", o->schedule_file, "replay a schedule file written by tfsem check");
  auto* seed = sub->add_option("--seed", o->seed, "choose each step at random from the enabled nodes, with this seed");
  add_bounds(*sub, o->bounds, "without a schedule, stop (INCOMPLETE, exit 3) before a step,");
  sched->excludes(file)->excludes(seed);
  file->excludes(seed);
  sub->add_option("--runs", o->runs, "run the graph this many times in one session (VarValue persists)")
      ->check(CLI::Range(1, 1000000));
  sub->add_option("--run", o->session,
                  "a session, as check --run takes it: each --run one session.run, the graph pruned to its fetches "
                  "(fetch=NAMES;targets=NAMES, or a list of fetches); --runs repeats the list")
      ->expected(1)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  sub->add_flag("--json", o->json, "print the trace as JSON");
  return {sub, [o] { return run_trace(*o); }};
}

}  // namespace tfsem::cli
