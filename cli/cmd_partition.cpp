// tfsem partition FILE --devices D,...: the graph split per device, a Send/Recv
// pair on each edge that crosses devices (semantics/partition.hpp).
#include "cli/commands.hpp"
#include "cli/exit_codes.hpp"
#include "cli/graph_options.hpp"
#include "cli/output.hpp"
#include "formats/json/graph_json.hpp"
#include "formats/load.hpp"
#include "semantics/partition.hpp"

#include <map>
#include <memory>

namespace tfsem::cli {

namespace {

struct PartitionCmd {
  GraphOptions graph;
  PartitionOptions options;
  std::string output;
};

int run_partition(const PartitionCmd& o) {
  const auto program = o.graph.program();
  ProgramSpec spec;
  try {
    spec = partition(program->spec(), o.options);
    Program::build(spec);  // what is written is a valid graph
  } catch (const InputError& e) {
    throw format::in_file(e, o.graph.file);
  }
  write_text(format::program_to_json(spec).dump(1) + "\n", o.output);
  return kSuccess;
}

}  // namespace

Command add_partition(CLI::App& app) {
  auto* sub = app.add_subcommand(
      "partition", "split a graph per device: a Send/Recv pair on each edge that crosses devices, as TensorFlow does");
  auto o = std::make_shared<PartitionCmd>();
  o->graph.add_to(*sub);
  sub->add_option("--devices", o->options.devices,
                  "DEVICE,...: the devices to place nodes on (with --assign keep, those for nodes naming none: the first)")
      ->delimiter(',');
  const std::map<std::string, PartitionOptions::Assign> assign = {{"keep", PartitionOptions::Assign::keep},
                                                                   {"round-robin", PartitionOptions::Assign::round_robin}};
  sub->add_option("--assign", o->options.assign,
                  "keep: each node's own device (default); round-robin: nodes in topological order on the devices in turn")
      ->transform(CLI::CheckedTransformer(assign, CLI::ignore_case));
  sub->add_flag("--every-edge", o->options.every_edge,
                "a pair on every edge that can be cut, as though each crossed devices (the most pairs a placement gives)");
  sub->add_option("-o,--output", o->output, "write to this file instead of stdout");
  return {sub, [o] { return run_partition(*o); }};
}

}  // namespace tfsem::cli
