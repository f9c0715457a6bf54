// tfsem conform FILE: every outcome of the fast executor must be one the
// reference semantics allows (conformance/conform.hpp).
#include "cli/commands.hpp"
#include "conformance/conform.hpp"
#include "cli/exec_options.hpp"
#include "cli/exit_codes.hpp"
#include "cli/graph_options.hpp"
#include "cli/progress.hpp"
#include "cli/search_options.hpp"

#include <iostream>
#include <memory>
#include <optional>

namespace tfsem::cli {

namespace {

struct ConformCmd {
  GraphOptions graph;
  ExecCli exec;
  SearchOptions search;
  std::size_t runs = 200;
  std::optional<double> tolerance;
  bool json = false;
};

int run_conform(const ConformCmd& o) {
  const auto& stop = o.search.start();
  const auto sem = o.graph.load(&stop);
  stop.enter("in the search");
  conform::Options opts;
  opts.runs = o.runs;
  opts.exec = o.exec.make(sem.options().terms);
  // GPU reductions add in another order than the reference (docs/gpu.md).
  opts.tolerance = o.tolerance.value_or(o.exec.device == "gpu" ? conform::kGpuTolerance : 0.0);
  opts.explore = o.search.make();
  // The reference search's progress line, then the runs' over it.
  CountProgress runs("run", o.runs);
  const auto report = conform::conform(sem.program_ptr(), opts, [&](std::size_t k) { runs.update(k); });
  runs.end(opts.explore.progress && report.reference.seconds >= 1);
  std::cout << (o.json ? conform::report_json(report) + "\n" : conform::report_text(report));
  if (!report.complete()) return kIncomplete;
  return report.conforms() ? kSuccess : kPropertyViolated;
}

}  // namespace

Command add_conform(CLI::App& app) {
  auto* sub = app.add_subcommand("conform", "check every outcome of the fast executor against the reference semantics");
  auto o = std::make_shared<ConformCmd>();
  o->graph.add_to(*sub);
  o->exec.add_to(*sub);
  o->search.add_to(*sub, true, "--search-threads");
  sub->add_option("--runs", o->runs, "executor runs, each from the initial VarValue")->check(CLI::PositiveNumber)->capture_default_str();
  sub->add_option("--tolerance", o->tolerance, "relative tolerance for floats: |a-b| <= t(1+|b|) (default: 0, exact; 1e-4 with --device gpu)")
      ->check(CLI::NonNegativeNumber);
  sub->add_flag("--json", o->json, "print the report as JSON");
  return {sub, [o] { return run_conform(*o); }};
}

}  // namespace tfsem::cli
