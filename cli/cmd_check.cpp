// tfsem check FILE: every outcome, the verdict, every race, the counters
// (report/check.hpp); with --run, of a session of runs (report/runs.hpp).
#include "cli/commands.hpp"
#include "cli/exit_codes.hpp"
#include "cli/graph_options.hpp"
#include "cli/output.hpp"
#include "cli/run_spec.hpp"
#include "cli/search_options.hpp"
#include "cli/witness_files.hpp"
#include "explorer/fix.hpp"
#include "explorer/session_search.hpp"
#include "formats/json/graph_json.hpp"
#include "report/check.hpp"
#include "report/forms.hpp"
#include "report/runs.hpp"
#include "semantics/concurrent.hpp"
#include "semantics/diagnostic.hpp"

#include <algorithm>
#include <iostream>
#include <memory>

namespace tfsem::cli {

namespace {

struct CheckOptions {
  GraphOptions graph;
  SearchOptions search;
  bool json = false;
  std::string witness_dir;
  std::string witnesses = "short";  // --witnesses
  std::string races = "groups";     // --races
  std::string html;                 // --html: the page
  bool no_fix = false;
  std::size_t fix_budget = 32;
  std::string fixed_graph;
  std::vector<std::string> runs;        // a session: one --run per session.run
  std::vector<std::string> concurrent;  // runs at once: one --concurrent per worker's session.run
  unsigned repeats = 1;                 // --runs K
};

// A fix of concurrent runs orders two nodes of one run: the user can add no edge between workers.
std::function<bool(const Program&, NodeId, NodeId)> may_order(const CheckOptions& o) {
  if (o.concurrent.empty()) return {};
  return one_run;
}

// A session of runs (--run, --runs): the list of runs `repeats` times.
int check_runs(const CheckOptions& o) {
  if (o.search.distributed) throw InputError("", "--distributed", "", "a session of runs is checked by one process");
  if (!o.fixed_graph.empty()) throw InputError("", "--run", "", "a session of runs writes no fixed graph");
  if (!o.html.empty()) throw InputError("", "--run", "", "a session of runs has no page (--html draws one graph)");
  if (o.search.checkpoints(false)) throw InputError("", "--run", "", "a session of runs writes no checkpoints");
  std::vector<report::RunLabel> runs, all;
  for (const auto& r : o.runs) runs.push_back(parse_run(r));
  if (runs.empty()) runs.push_back({"", o.graph.fetches});
  const auto& stop = o.search.start();
  std::vector<std::shared_ptr<const Program>> programs;
  if (o.concurrent.empty()) {
    for (unsigned k = 0; k < o.repeats; ++k) all.insert(all.end(), runs.begin(), runs.end());
    programs = session_programs(o.graph, all, &stop);
  } else {  // rounds, each the concurrent runs at once
    std::string round;
    for (const auto& c : o.concurrent) round += (round.empty() ? "" : " | ") + c;
    all.assign(o.repeats, {round, {}});
    programs.assign(o.repeats, concurrent_program(o.graph, o.concurrent, &stop));
  }
  const auto explore = o.search.make();
  stop.enter("in the search");
  // An uninterpreted stateful op taking a variable leaves the verdict incomplete (I-STATEFUL-VAR): no fix is verified.
  const bool assumable =
      std::all_of(programs.begin(), programs.end(), [](const auto& p) { return report::unassumable(*p).empty(); });
  const explorer::RunsOptions options{explore, o.no_fix || !assumable ? 0 : o.fix_budget,
                                      [&explore](const explorer::Result& r) { end_progress(explore, r); }, may_order(o)};
  const auto result = explorer::explore_runs(programs, o.graph.options(), options);
  const report::RunsReport report{all, programs, result, o.search.por, options.fix_budget > 0};
  std::cout << (o.json ? report::runs_json(report).dump(2) + "\n" : report::runs_text(report));
  if (!o.witness_dir.empty()) write_witnesses(programs, result, o.witness_dir);
  if (!result.complete() || !assumable) return kIncomplete;
  return result.deterministic() && !result.violated ? kSuccess : kPropertyViolated;
}

// The report is written whatever stopped the search, with at least this
// long before the deadline.
constexpr std::chrono::milliseconds kReportGrace{250};

// The facts found so far when a stop interrupts the report: the stop, the
// number of outcomes and races, the verdict, the counters.
void print_stopped_report(const explorer::Result& r, const Stopped& e) {
  std::cout << report::stopped_line(e.what(), " " + e.phase()) << report::count_line("outcomes", r.outcomes.size(), r.complete)
            << report::count_line("races", r.races.size(), r.complete)
            << report::verdict_line(report::verdict(r.complete, r.violated(), explorer::one_per_path(r.outcomes)))
            << report::counters_text(r.counters, r.seconds);
}

int run_check(const CheckOptions& o) {
  if (!o.runs.empty() && !o.concurrent.empty())
    throw InputError("", "--concurrent", "", "concurrent runs repeat in rounds (--runs K), not beside --run");
  if (!o.runs.empty() || o.repeats > 1) return check_runs(o);
  auto& stop = o.search.start();
  const auto sem = o.concurrent.empty() ? o.graph.load(&stop)
                                        : Semantics(concurrent_program(o.graph, o.concurrent, &stop), o.graph.options());
  const auto opts = o.search.make();
  stop.enter("in the search");
  std::vector<explorer::distributed::RankReport> ranks;
  const auto result = o.search.explore(sem, opts, &ranks);
  end_progress(opts, result);
  // Rank 0 reports, and searches for fixes on its own (the candidates are explored by one process).
  if (!o.search.reports()) return o.search.exit_code(kSuccess);
  // An uninterpreted stateful op taking a variable leaves the verdict incomplete (I-STATEFUL-VAR): no fix is verified.
  const bool assumable = report::unassumable(sem.program()).empty();
  report::CheckFixes fixes{!o.no_fix && assumable, {}, {}};
  if (fixes.searched && result.complete && (!result.deterministic() || result.violated())) {
    stop.enter("in the search for fixes");
    fixes.found = explorer::suggest_fixes(sem, result, {opts, o.fix_budget, may_order(o)});
    // The explorations verifying fixes stop on the token too; the outcomes are complete, the fixes not.
    if (stop.stopped()) fixes.stopped_by = stop.reason_text();
  }
  const report::CheckReport report{sem, result, fixes, ranks, o.search.memory_bound(), &stop};
  const report::CheckTextForm form{o.witnesses == "full" ? report::WitnessForm::full : report::WitnessForm::brief,
                                   o.races == "full"};
  stop.begin_report(kReportGrace);
  stop.enter("while writing the report");
  bool printed = false;
  try {
    std::cout << (o.json ? report::check_json(report).dump(2) + "\n" : report::check_text(report, form));
    printed = true;
    if (!o.fixed_graph.empty() && !fixes.found.empty())
      write_text(format::program_to_json(fixes.found.front().fixed).dump(2) + "\n", o.fixed_graph);
    stop.enter("while writing witnesses");
    if (!o.witness_dir.empty()) write_witnesses(sem, result, o.witness_dir, &stop);
    stop.enter("while writing the report");
    if (!o.html.empty()) write_text(report::check_page(report), o.html);
  } catch (const Stopped& e) {
    if (printed) std::cout << report::stopped_line(e.what(), " " + e.phase());
    else print_stopped_report(result, e);
    return o.search.exit_code(kIncomplete);
  }
  if (!result.complete || !fixes.stopped_by.empty() || !assumable) return o.search.exit_code(kIncomplete);
  return o.search.exit_code(result.deterministic() && !result.violated() ? kSuccess : kPropertyViolated);
}

}  // namespace

Command add_check(CLI::App& app) {
  auto* sub = app.add_subcommand("check", "explore every behaviour: outcomes, verdict, races, witnesses");
  auto o = std::make_shared<CheckOptions>();
  o->graph.add_to(*sub);
  o->search.add_to(*sub);
  o->search.add_distributed(*sub);
  o->search.add_checkpoints(*sub);
  sub->add_flag("--json", o->json, "print the report as JSON");
  sub->add_flag("--no-fix", o->no_fix, "do not search for control edges that make the graph deterministic");
  sub->add_option("--fix-budget", o->fix_budget, "explorations the fix search may spend")->capture_default_str();
  sub->add_option("--fixed-graph", o->fixed_graph, "write the graph with the first suggested fix applied (JSON)");
  sub->add_option("--run", o->runs,
                  "a session: each --run is one session.run, fetch=NAMES;targets=NAMES (or a list of fetches), the graph "
                  "pruned to them; VarValue persists from run to run, and an outcome is the sequence of their outputs")
      ->expected(1)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  sub->add_option("--concurrent", o->concurrent,
                  "runs at once (TF1's between-graph replication): each --concurrent is one worker's session.run, "
                  "'LABEL: RUN' with RUN as --run takes it, the graph pruned to it; their steps interleave, VarValue "
                  "shared, nodes named LABEL/NODE")
      ->expected(1)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  sub->add_option("--runs", o->repeats,
                  "repeat the session's runs (or the one run --fetch makes, or the concurrent runs as one round) K times")
      ->check(CLI::Range(1U, 1000U));
  sub->add_option("--witnesses", o->witnesses,
                  "text: short (the steps of the racing and deciding nodes, the rest elided) or full (every step)")
      ->check(CLI::IsMember({"short", "full"}))
      ->capture_default_str();
  sub->add_option("--races", o->races,
                  "text: groups (a line per racing pair of nodes, its contexts summarized) or full (each race too, with "
                  "a witness for each order)")
      ->check(CLI::IsMember({"groups", "full"}))
      ->capture_default_str();
  sub->add_option("--html", o->html,
                  "write a page (one self-contained HTML file): the graph with its races, the report, and a stepper "
                  "through every witness");
  sub->add_option("--witness-dir", o->witness_dir,
                  "write each outcome's and each race order's witness schedule there, for tfsem trace --schedule-file "
                  "(a session: each outcome's, for trace with the same --run options)");
  return {sub, [o] { return run_check(*o); }};
}

}  // namespace tfsem::cli
