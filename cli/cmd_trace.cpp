// tfsem trace FILE: fires nodes one at a time (cli/trace_walk.hpp) and prints
// each state as the paper's figures show them (report/trace.hpp).
#include "cli/commands.hpp"
#include "cli/exit_codes.hpp"
#include "cli/graph_options.hpp"
#include "cli/output.hpp"
#include "cli/run_spec.hpp"
#include "cli/schedule_file.hpp"
#include "cli/search_options.hpp"
#include "cli/trace_walk.hpp"
#include "semantics/diagnostic.hpp"

#include <algorithm>
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
  std::string html;  // --html: the page
};

// The Semantics of each run: one graph, or with --run one per run of the
// session (the list repeated --runs times), each pruned to its fetches.
std::vector<Semantics> run_semantics(const TraceOptions& o) {
  std::vector<Semantics> out;
  if (o.session.empty()) {
    out.push_back(o.graph.load());
    return out;
  }
  std::vector<report::RunLabel> all;
  for (int k = 0; k < o.runs; ++k)
    for (const auto& r : o.session) all.push_back(parse_run(r));
  for (auto& program : session_programs(o.graph, all)) out.emplace_back(std::move(program), o.graph.options());
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
  const Walk w{of_run, runs, scheduled ? std::optional(std::move(schedules)) : std::nullopt, o.seed, o.bounds};
  const auto writer = o.json ? report::trace_json(std::cout) : report::trace_text(std::cout);
  if (o.html.empty()) return walk(w, *writer) ? kIncomplete : kSuccess;
  if (sems.size() > 1) throw InputError("", "--html", "", "a page draws one graph, and the runs of --run have one each");
  const auto page = report::trace_page(*writer);
  const bool beyond = walk(w, *page);
  write_text(page->html(), o.html);
  return beyond ? kIncomplete : kSuccess;
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
  sub->add_option("--html", o->html,
                  "also write a page (one self-contained HTML file): the graph, and a stepper through each run's states");
  return {sub, [o] { return run_trace(*o); }};
}

}  // namespace tfsem::cli
