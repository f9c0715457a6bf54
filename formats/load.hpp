// A graph file of either kind: tfsem's JSON, or a TensorFlow GraphDef (binary,
// text or JSON) imported. The command line reads every graph through here:
// load_program loads, feeds (G-FEED, I-FEED), validates and prunes (S-PRUNE).
#pragma once

#include "formats/graphdef/importer.hpp"
#include "semantics/diagnostic.hpp"

#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace tfsem::format {

struct LoadedGraph {
  ProgramSpec spec;
  std::vector<std::string> placeholders;  // of an imported graph: input edges to feed
  std::vector<std::string> notes;         // of an imported graph: how it was modelled
};

// Throws InputError: the file cannot be read, is malformed, or (for tfsem's
// JSON) asks for an import option.
LoadedGraph load_graph_file(const std::filesystem::path& file, const graphdef::ImportOptions& options);

struct LoadOptions {
  graphdef::ImportOptions import{};  // its fetches prune any graph, not only an imported one
  std::vector<std::string> feeds;    // EDGE=VALUE, each an input edge's initial contents (G-FEED)
  bool prune = false;                // to the fetches, or to every fetched output when there are none
};

// The program in `file`, fed, validated and pruned: each import note goes to
// `on_note` as soon as the file is read. Throws InputError, each problem naming
// the file, when the file cannot be loaded, a feed or a fetch names no edge, the
// program breaks a rule, or a placeholder the pruned program needs is not fed
// (I-FEED: TensorFlow refuses to run such a graph).
std::shared_ptr<const Program> load_program(const std::filesystem::path& file, const LoadOptions& options,
                                            const std::function<void(const std::string&)>& on_note = {});

// The problems of e, each naming the file `path` as well as its place in it.
InputError in_file(const InputError& e, const std::string& path);

}  // namespace tfsem::format
