#include "formats/load.hpp"

#include "formats/graphdef/reader.hpp"
#include "formats/json/file_text.hpp"
#include "formats/json/graph_json.hpp"
#include "semantics/diagnostic.hpp"

namespace tfsem::format {

LoadedGraph load_graph_file(const std::filesystem::path& file, const graphdef::ImportOptions& options) {
  const FileText file_text(file);
  const auto contents = file_text.text();
  LoadedGraph out;
  const auto encoding = graphdef::sniff(file, contents);
  if (!encoding) {
    for (const auto& [given, option] : {std::pair{options.initialized, "--initialized"}, std::pair{options.tf1_refs, "--tf1-refs"}})
      if (given)
        throw InputError("I-OPTION", option, "", "applies to TensorFlow GraphDefs, and " + file.string() + " is tfsem's JSON");
    out.spec = parse_program_text(contents, file.string());
    return out;
  }
  auto read = graphdef::parse(contents, *encoding, file.string());
  auto imported = graphdef::import_graph(read.graph, file.stem().string(), options);
  out.spec = std::move(imported.spec);
  out.placeholders = std::move(imported.placeholders);
  out.notes = std::move(imported.notes);
  if (!read.skipped.empty()) {
    std::string fields;
    for (const auto& s : read.skipped) fields += (fields.empty() ? "" : ", ") + s;
    out.notes.push_back("fields outside tfsem's GraphDef subset, skipped: " + fields);
  }
  return out;
}

}  // namespace tfsem::format
