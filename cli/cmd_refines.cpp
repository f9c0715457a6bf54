// tfsem refines A B: every outcome of B is an outcome of A, on what the two
// share (explorer/refines.hpp), for the feeds given.
#include "cli/commands.hpp"
#include "cli/exit_codes.hpp"
#include "cli/graph_options.hpp"
#include "cli/search_options.hpp"
#include "explorer/refines.hpp"
#include "report/refinement.hpp"

#include <iostream>
#include <memory>

namespace tfsem::cli {

namespace {

struct RefinesCmd {
  GraphOptions graph;  // A: graph.file
  std::string implementation;
  SearchOptions search;
};

int run_refines(const RefinesCmd& o) {
  const auto& stop = o.search.start();
  const auto spec_sem = o.graph.load(&stop), impl_sem = o.graph.load(o.implementation, &stop);
  stop.enter("in the search");
  const auto options = o.search.make();
  const auto r = explorer::refines(spec_sem, impl_sem, options);
  end_progress(options, r.implementation);
  std::cout << report::refinement_text({spec_sem, impl_sem, o.graph.file, o.implementation, r});
  return !r.complete() ? kIncomplete : r.refines() ? kSuccess : kPropertyViolated;
}

}  // namespace

Command add_refines(CLI::App& app) {
  auto* sub = app.add_subcommand(
      "refines", "check that every outcome of graph B is one of graph A (a rewrite, a transformation, adds no behaviour)");
  auto o = std::make_shared<RefinesCmd>();
  o->graph.add_to(*sub);
  sub->add_option("B", o->implementation, "the graph whose outcomes must all be A's (same --feed)")->required();
  o->search.add_to(*sub);
  return {sub, [o] { return run_refines(*o); }};
}

}  // namespace tfsem::cli
