// A graph file of either kind: tfsem's JSON, or a TensorFlow graph imported (a
// GraphDef, MetaGraphDef or SavedModel, binary, text or JSON). The command
// line reads every graph through here: load_program loads, feeds (G-FEED,
// I-FEED), validates and prunes (S-PRUNE).
#pragma once

#include "formats/graphdef/importer.hpp"
#include "formats/graphdef/saved_model.hpp"
#include "semantics/diagnostic.hpp"

#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace tfsem::format {

struct LoadedGraph {
  ProgramSpec spec;
  std::vector<std::string> notes;         // of an imported graph: how it was modelled
  // What the run fetches: the import options' fetches, else a signature's outputs.
  std::vector<std::string> fetches;
  // Whether the import pruned the graph to the fetches, as TensorFlow prunes
  // it before lowering its functional ops and inlining its calls (a needed
  // call runs its whole body, I-CALL), so that S-PRUNE is not applied again.
  bool pruned = false;
  // Of an imported graph, by the import options' feeds: the input edge each
  // gives its value, or "" for a placeholder the run does not consume.
  std::vector<std::string> fed;
};

// Throws InputError: the file cannot be read, is malformed, or (for tfsem's
// JSON) asks for an import option. `file` may be a SavedModel's directory.
LoadedGraph load_graph_file(const std::filesystem::path& file, const graphdef::ImportOptions& options,
                            const graphdef::MetaGraphChoice& choice = {});

struct LoadOptions {
  graphdef::ImportOptions import{};  // its fetches prune any graph, not only an imported one; its feeds are set from `feeds`
  std::vector<std::string> feeds;    // EDGE=VALUE, each an input edge's initial contents (G-FEED, I-FEED)
  bool prune = false;                // to the fetches, or to every fetched output when there are none
  graphdef::MetaGraphChoice choice{};  // of a SavedModel or MetaGraphDef: --tag, --signature
};

// The program in `file`, fed, validated and pruned: each import note goes to
// `on_note` as soon as the file is read. The import options' stop token (may
// be null) is polled throughout, and told the phase ("during import", "during
// validation"); a stop throws Stopped. Throws InputError, each problem naming
// the file, when the file cannot be loaded, a feed names no input edge (of an
// imported graph: no placeholder), a fetch names no edge, or the program
// breaks a rule. An imported graph's placeholder that is not fed holds the
// symbolic value named after it.
std::shared_ptr<const Program> load_program(const std::filesystem::path& file, const LoadOptions& options,
                                            const std::function<void(const std::string&)>& on_note = {});

// The problems of e, each naming the file `path` as well as its place in it.
InputError in_file(const InputError& e, const std::string& path);

}  // namespace tfsem::format
