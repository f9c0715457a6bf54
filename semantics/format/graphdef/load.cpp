#include "semantics/format/graphdef/load.hpp"

#include "semantics/diagnostic.hpp"
#include "semantics/format/file_text.hpp"
#include "semantics/format/graph_json.hpp"
#include "semantics/format/graphdef/reader.hpp"

namespace tfsem::graphdef {

LoadedGraph load_graph_file(const std::filesystem::path& file, const ImportOptions& options) {
  const format::FileText file_text(file);
  const auto contents = file_text.text();
  LoadedGraph out;
  const auto encoding = sniff(file, contents);
  if (!encoding) {
    for (const auto& [given, option] : {std::pair{options.initialized, "--initialized"}, std::pair{options.tf1_refs, "--tf1-refs"}})
      if (given)
        throw InputError("I-OPTION", option, "", "applies to TensorFlow GraphDefs, and " + file.string() + " is tfsem's JSON");
    out.spec = format::parse_program_text(contents, file.string());
    return out;
  }
  auto read = parse(contents, *encoding, file.string());
  auto imported = import_graph(read.graph, file.stem().string(), options);
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

}  // namespace tfsem::graphdef
