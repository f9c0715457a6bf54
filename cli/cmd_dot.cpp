// tfsem dot FILE: the graph in the paper's conventions (cli/graph_dot.hpp);
// --svg renders it through Graphviz.
#include "cli/commands.hpp"
#include "cli/dot.hpp"
#include "cli/exit_codes.hpp"
#include "cli/graph_dot.hpp"
#include "cli/graph_options.hpp"
#include "cli/output.hpp"
#include "semantics/diagnostic.hpp"

#include <memory>

namespace tfsem::cli {

namespace {

struct DotCmd {
  GraphOptions graph;
  bool races = false;
  std::string state;  // a schedule, or "initial"
  std::string output;
  bool svg = false;
};

int run_dot(const DotCmd& o) {
  const auto sem = o.graph.load();
  const auto text = graph_dot(sem, o.races, o.state);
  if (o.svg && o.output.empty()) throw InputError("", "--svg", "", "--svg needs -o FILE");
  if (o.svg) render_svg(text, o.output);
  else write_text(text, o.output);
  return kSuccess;
}

}  // namespace

Command add_dot(CLI::App& app) {
  auto* sub = app.add_subcommand("dot", "draw the graph as Graphviz in the paper's conventions");
  auto o = std::make_shared<DotCmd>();
  o->graph.add_to(*sub);
  sub->add_flag("--races", o->races, "explore the graph and mark every racing pair in red");
  sub->add_option("--state", o->state, "draw the contents of the state after this schedule ('initial': the initial state)");
  sub->add_option("-o,--output", o->output, "write to this file instead of stdout");
  sub->add_flag("--svg", o->svg, "render as SVG through Graphviz's dot (needs -o)");
  return {sub, [o] { return run_dot(*o); }};
}

}  // namespace tfsem::cli
