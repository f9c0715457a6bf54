// A graph file of either kind: tfsem's JSON, or a TensorFlow GraphDef (binary,
// text or JSON) imported. The command line reads every graph through here.
#pragma once

#include "formats/graphdef/importer.hpp"

#include <filesystem>

namespace tfsem::format {

struct LoadedGraph {
  ProgramSpec spec;
  std::vector<std::string> placeholders;  // of an imported graph: input edges to feed
  std::vector<std::string> notes;         // of an imported graph: how it was modelled
};

// Throws InputError: the file cannot be read, is malformed, or (for tfsem's
// JSON) asks for an import option.
LoadedGraph load_graph_file(const std::filesystem::path& file, const graphdef::ImportOptions& options);

}  // namespace tfsem::format
