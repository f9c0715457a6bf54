#include "cli/graph_options.hpp"

#include "formats/json/graph_json.hpp"
#include "formats/load.hpp"
#include "semantics/prune.hpp"

#include <iostream>

namespace tfsem::cli {

void GraphOptions::add_to(CLI::App& app) {
  app.add_option("FILE", file, "graph: tfsem's JSON, or a TensorFlow GraphDef (.pb, .pbtxt, or its JSON)")->required();
  app.add_option("--feed", feeds, "EDGE=VALUE: replace an input edge's initial contents (JSON tensor literal); "
                                  "for a GraphDef, a placeholder by its name");
  app.add_flag("--prune", prune, "keep only the nodes a fetched output depends on (footnote 7)");
  app.add_option("--fetch", fetches,
                 "fetch names to keep when pruning (default: all); for a GraphDef, what session.run fetches: "
                 "NODE:K a tensor, NODE an op to run")
      ->delimiter(',');
  app.add_flag("--normalize", normalize, "normalize symbolic terms modulo the functions' algebraic laws");
  app.add_flag("--initialized", initialized,
               "GraphDef: variables start with their initializers' values, as after running the initializers in an "
               "earlier session.run; the initializers are left out");
  app.add_flag("--tf1-refs", tf1_refs,
               "GraphDef: TensorFlow 1's references: x/read aliases the variable, and a function reading it "
               "dereferences the variable when it runs (S-DEREF), not a snapshot taken before");
}

std::shared_ptr<const Program> GraphOptions::program(const std::string& path, bool notes) const {
  try {
    auto loaded = format::load_graph_file(path, {fetches, initialized, tf1_refs});
    for (const auto& note : loaded.notes)
      if (notes) std::cerr << "tfsem: import: " << note << "\n";
    for (const auto& f : feeds) format::apply_feed(loaded.spec, f);
    auto program = Program::build(std::move(loaded.spec));
    if (prune || !fetches.empty()) program = tfsem::prune(*program, fetches);
    // TensorFlow refuses to run a graph that needs a placeholder nobody fed.
    for (const auto& p : loaded.placeholders) {
      const bool fed = std::any_of(feeds.begin(), feeds.end(), [&](const std::string& f) { return f.starts_with(p + "="); });
      if (!fed && program->find_edge(p))
        throw InputError("I-FEED", "", "placeholder '" + p + "'",
                         "the run needs it and it is not fed; give its value with --feed '" + p + "=VALUE'");
    }
    return program;
  } catch (const InputError& e) {
    throw in_file(e, path);
  }
}

Semantics GraphOptions::load(const std::string& path) const {
  Options opts;
  opts.terms.normalize = normalize;
  return Semantics(program(path), opts);
}

InputError in_file(const InputError& e, const std::string& path) {
  auto diags = e.diagnostics();
  for (auto& d : diags)
    if (!d.where.starts_with(path)) d.where = d.where.empty() ? path : path + ": " + d.where;
  return InputError(std::move(diags));
}

}  // namespace tfsem::cli
