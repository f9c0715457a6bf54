// tfsem import FILE: a TensorFlow graph (GraphDef, MetaGraphDef, SavedModel) as tfsem's JSON (docs/import.md).
#include "cli/commands.hpp"
#include "cli/exit_codes.hpp"
#include "cli/graph_options.hpp"
#include "cli/output.hpp"
#include "formats/json/graph_json.hpp"

#include <iostream>
#include <memory>

namespace tfsem::cli {

namespace {

struct ImportCmd {
  GraphOptions graph;
  std::string output;
};

int run_import(const ImportCmd& o) {
  const auto program = o.graph.program();
  write_text(format::program_to_json(program->spec()).dump(1) + "\n", o.output);
  if (!o.output.empty())
    std::cout << "imported: " << o.graph.file << " -> " << o.output << ": " << program->nodes().size() << " nodes, "
              << program->edges().size() << " edges, " << program->variables().size() << " variables, hash "
              << program->hash_hex() << "\n";
  return kSuccess;
}

}  // namespace

Command add_import(CLI::App& app) {
  auto* sub = app.add_subcommand("import", "write a TensorFlow GraphDef, MetaGraphDef or SavedModel (binary, text or JSON) as tfsem's JSON");
  auto o = std::make_shared<ImportCmd>();
  o->graph.add_to(*sub);
  sub->add_option("-o,--output", o->output, "write to this file instead of stdout");
  return {sub, [o] { return run_import(*o); }};
}

}  // namespace tfsem::cli
