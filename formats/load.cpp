#include "formats/load.hpp"

#include "formats/graphdef/reader.hpp"
#include "formats/json/file_text.hpp"
#include "formats/json/graph_json.hpp"
#include "semantics/prune.hpp"

#include <algorithm>

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

std::shared_ptr<const Program> load_program(const std::filesystem::path& file, const LoadOptions& options,
                                            const std::function<void(const std::string&)>& on_note) {
  const auto& fetches = options.import.fetches;
  try {
    auto loaded = load_graph_file(file, options.import);
    if (on_note)
      for (const auto& note : loaded.notes) on_note(note);
    for (const auto& f : options.feeds) apply_feed(loaded.spec, f);
    auto program = Program::build(std::move(loaded.spec));
    if (options.prune || !fetches.empty()) program = tfsem::prune(*program, fetches);
    // I-FEED: TensorFlow refuses to run a graph that needs a placeholder nobody fed.
    for (const auto& p : loaded.placeholders) {
      const bool fed =
          std::any_of(options.feeds.begin(), options.feeds.end(), [&](const std::string& f) { return f.starts_with(p + "="); });
      if (!fed && program->find_edge(p))
        throw InputError("I-FEED", "", "placeholder '" + p + "'",
                         "the run needs it and it is not fed; give its value with --feed '" + p + "=VALUE'");
    }
    return program;
  } catch (const InputError& e) {
    throw in_file(e, file.string());
  }
}

InputError in_file(const InputError& e, const std::string& path) {
  auto diags = e.diagnostics();
  for (auto& d : diags)
    if (!d.where.starts_with(path)) d.where = d.where.empty() ? path : path + ": " + d.where;
  return InputError(std::move(diags));
}

}  // namespace tfsem::format
