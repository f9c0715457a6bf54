#include "cli/graph_options.hpp"

#include "semantics/format/graph_json.hpp"
#include "semantics/prune.hpp"

namespace tfsem::cli {

void GraphOptions::add_to(CLI::App& app) {
  app.add_option("FILE", file, "graph in tfsem's JSON format")->required();
  app.add_option("--feed", feeds, "EDGE=VALUE: replace an input edge's initial contents (JSON tensor literal)");
  app.add_flag("--prune", prune, "keep only the nodes a fetched output depends on (footnote 7)");
  app.add_option("--fetch", fetches, "fetch names to keep when pruning (default: all)")->delimiter(',');
  app.add_flag("--normalize", normalize, "normalize symbolic terms modulo the functions' algebraic laws");
}

Semantics GraphOptions::load(const std::string& path) const {
  try {
    auto spec = format::load_program_file(path);
    for (const auto& f : feeds) format::apply_feed(spec, f);
    auto program = Program::build(std::move(spec));
    if (prune || !fetches.empty()) program = tfsem::prune(*program, fetches);
    Options opts;
    opts.terms.normalize = normalize;
    return Semantics(std::move(program), opts);
  } catch (const InputError& e) {
    throw in_file(e, path);
  }
}

InputError in_file(const InputError& e, const std::string& path) {
  auto diags = e.diagnostics();
  for (auto& d : diags)
    if (!d.where.starts_with(path)) d.where = d.where.empty() ? path : path + ": " + d.where;
  return InputError(std::move(diags));
}

}  // namespace tfsem::cli
