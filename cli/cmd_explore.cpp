// tfsem explore FILE: the search counters of each reduction side by side, and
// optionally the explored state graph as Graphviz (--dot).
#include "cli/commands.hpp"
#include "cli/exit_codes.hpp"
#include "cli/graph_options.hpp"
#include "cli/search_options.hpp"
#include "cli/state_graph_dot.hpp"
#include "report/explore.hpp"
#include "semantics/diagnostic.hpp"

#include <algorithm>
#include <iostream>
#include <memory>

namespace tfsem::cli {

namespace {

struct ExploreCmd {
  GraphOptions graph;
  SearchOptions search;
  std::vector<std::string> pors{"none", "stubborn", "rf"};
  bool json = false;
  std::string dot;
  std::uint64_t dot_max_states = 500;
};

int run_explore(const ExploreCmd& o) {
  const auto& stop = o.search.start();
  const auto sem = o.graph.load(&stop);
  stop.enter("in the search");
  const auto& p = sem.program();
  if (o.search.distributed && !o.dot.empty()) throw InputError("", "--dot", "", "--distributed draws no state graph");
  if (o.search.checkpoints(false) && !o.dot.empty()) throw InputError("", "--dot", "", "a search with checkpoints draws no state graph");
  std::vector<explorer::Result> results;
  std::vector<std::vector<explorer::distributed::RankReport>> ranks(o.pors.size());
  for (const auto& name : o.pors) {
    const auto por = *explorer::parse_por(name);
    auto opts = o.search.make(por);
    const bool draw = !o.dot.empty() && &name == &o.pors.back();
    StateGraphDot dot(sem, o.dot_max_states);
    if (draw) opts.observer = dot.observer();
    results.push_back(o.search.explore(sem, opts, &ranks[results.size()], results.empty()));
    end_progress(opts, results.back());
    if (stop.stopped()) break;  // the reductions not run yet are left out
    if (draw) dot.write(o.dot, results.back().counters.states_stored);
  }
  if (!o.search.reports()) return o.search.exit_code(kSuccess);
  const report::ExploreReport report{p, o.pors, results, ranks, o.search.distributed};
  std::cout << (o.json ? report::explore_json(report).dump(2) + "\n" : report::explore_text(report));
  const bool complete = std::all_of(results.begin(), results.end(), [](const explorer::Result& r) { return r.complete; });
  return o.search.exit_code(complete ? kSuccess : kIncomplete);
}

}  // namespace

Command add_explore(CLI::App& app) {
  auto* sub = app.add_subcommand("explore", "search counters of each reduction side by side; the state graph with --dot");
  auto o = std::make_shared<ExploreCmd>();
  o->graph.add_to(*sub);
  o->search.add_to(*sub, false);
  o->search.add_distributed(*sub);
  o->search.add_checkpoints(*sub);
  sub->add_option("--por", o->pors, "the reductions to run, in order (the last one is drawn by --dot)")
      ->check(CLI::IsMember({"none", "stubborn", "rf"}))
      ->delimiter(',')
      ->capture_default_str();
  sub->add_flag("--json", o->json, "print the counters as JSON");
  sub->add_option("--dot", o->dot, "write the state graph explored by the last --por as Graphviz");
  sub->add_option("--dot-max-states", o->dot_max_states, "refuse --dot above this many states")->capture_default_str();
  return {sub, [o] { return run_explore(*o); }};
}

}  // namespace tfsem::cli
