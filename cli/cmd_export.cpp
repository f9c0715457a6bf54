// tfsem export --promela FILE: the graph as a Promela model for SPIN.
#include "cli/commands.hpp"
#include "cli/exit_codes.hpp"
#include "cli/graph_options.hpp"
#include "cli/output.hpp"
#include "semantics/diagnostic.hpp"
#include "promela/promela.hpp"

#include <memory>

namespace tfsem::cli {

namespace {

struct ExportCmd {
  GraphOptions graph;
  bool promela = false;
  promela::PromelaOptions promela_options;
  std::string output;
};

int run_export(const ExportCmd& o) {
  if (!o.promela) throw InputError("", "export", "", "name a format: --promela");
  const auto sem = o.graph.load();
  write_text(promela::to_promela(sem.program(), o.promela_options), o.output);
  return kSuccess;
}

}  // namespace

Command add_export(CLI::App& app) {
  auto* sub = app.add_subcommand("export", "write the graph in another tool's language (Promela for SPIN)");
  auto o = std::make_shared<ExportCmd>();
  o->graph.add_to(*sub);
  sub->add_flag("--promela", o->promela,
                "Promela: one process per node, edges as xr/xs channels (with control flow: contexts unrolled, one "
                "process firing every transition); prints each terminal outcome");
  sub->add_option("--max-iterations", o->promela_options.max_iterations,
                  "with control flow: unroll each loop to this many iterations; a behaviour that would start one more "
                  "prints BEYOND and fails an assertion (as tfsem check --max-iterations stops)")
      ->check(CLI::Range(1U, 1U << 20))
      ->capture_default_str();
  sub->add_option("-o,--output", o->output, "write to this file instead of stdout");
  return {sub, [o] { return run_export(*o); }};
}

}  // namespace tfsem::cli
