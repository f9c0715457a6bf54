#include "formats/load.hpp"

#include "formats/graphdef/reader.hpp"
#include "formats/json/file_text.hpp"
#include "formats/json/graph_json.hpp"
#include "semantics/prune.hpp"

#include <memory>
#include <optional>

namespace tfsem::format {

namespace {

// The file a path names: a SavedModel's directory holds saved_model.pb (or .pbtxt).
std::filesystem::path graph_file(const std::filesystem::path& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    for (const auto* name : {"saved_model.pb", "saved_model.pbtxt"})
      if (std::filesystem::exists(path / name, ec)) return path / name;
  return path;
}

// The graph's name: the file's, or for a SavedModel the directory's.
std::string graph_name(const std::filesystem::path& path, const std::filesystem::path& file) {
  if (file == path) {
    if (file.stem() != "saved_model" || file.parent_path().filename().empty()) return file.stem().string();
    return file.parent_path().filename().string();
  }
  const auto dir = std::filesystem::absolute(path).lexically_normal();
  return (dir.filename().empty() ? dir.parent_path() : dir).filename().string();
}

void refuse_options(const graphdef::ImportOptions& options, const graphdef::MetaGraphChoice& choice,
                    const std::string& file, bool json) {
  for (const auto& [given, option] : {std::pair{options.initialized && json, "--initialized"},
                                      std::pair{options.tf1_refs && json, "--tf1-refs"},
                                      std::pair{!choice.tag.empty(), "--tag"}, std::pair{!choice.signature.empty(), "--signature"}})
    if (given)
      throw InputError("I-OPTION", option, "",
                       json ? "applies to TensorFlow GraphDefs, and " + file + " is tfsem's JSON"
                            : "applies to a SavedModel or MetaGraphDef, and " + file + " holds a GraphDef");
}

// The graph in `contents`, the text of `file`, which `path` names; `sniffed`
// is what graphdef::sniff says of it.
LoadedGraph read_graph_file(const std::filesystem::path& path, const std::filesystem::path& file,
                            std::string_view contents, const std::optional<graphdef::Sniffed>& sniffed,
                            const graphdef::ImportOptions& options, const graphdef::MetaGraphChoice& choice) {
  const StopPoll poll(options.stop);
  LoadedGraph out;
  if (!sniffed) {
    refuse_options(options, choice, file.string(), true);
    out.spec = parse_program_text(contents, file.string());
    poll.check();
    out.fetches = options.fetches;
    return out;
  }
  if (const auto named = graphdef::named_encoding(file); named && *named != sniffed->encoding)
    out.notes.push_back(file.filename().string() + " holds " + std::string(graphdef::encoding_name(sniffed->encoding)) +
                        ", though its name says " + std::string(graphdef::encoding_name(*named)) + "; read as what it holds");
  auto import = options;
  graphdef::GraphDef graph;
  std::vector<std::string> skipped;
  if (sniffed->container == graphdef::Container::graph_def) {
    refuse_options(options, choice, file.string(), false);
    auto read = graphdef::parse(contents, sniffed->encoding, file.string(), options.stop);
    graph.Swap(&read.graph);
    skipped = std::move(read.skipped);
  } else {
    auto read = graphdef::parse_meta_graphs(contents, sniffed->encoding, sniffed->container, file.string(), options.stop);
    auto chosen = graphdef::choose_graph(read.meta_graphs, choice);
    graph.Swap(&chosen.graph);
    skipped = std::move(read.skipped);
    out.notes.insert(out.notes.end(), chosen.notes.begin(), chosen.notes.end());
    if (import.fetches.empty()) import.fetches = std::move(chosen.outputs);
    import.inputs = std::move(chosen.inputs);
    import.restored = sniffed->container == graphdef::Container::saved_model;
  }
  auto imported = graphdef::import_graph(graph, graph_name(path, file), import);
  out.spec = std::move(imported.spec);
  out.notes.insert(out.notes.end(), imported.notes.begin(), imported.notes.end());
  out.fetches = std::move(import.fetches);
  out.pruned = !out.fetches.empty();
  out.fed = std::move(imported.fed);
  if (!skipped.empty()) {
    std::string fields;
    for (const auto& s : skipped) fields += (fields.empty() ? "" : ", ") + s;
    out.notes.push_back("fields outside tfsem's subset of TensorFlow's messages, skipped: " + fields);
  }
  return out;
}

// A graph file opened: the file `path` names, its text, and what
// graphdef::sniff says of it (nothing: tfsem's JSON).
struct OpenedGraph {
  std::filesystem::path file;
  std::unique_ptr<FileText> text;
  std::optional<graphdef::Sniffed> sniffed;
};

OpenedGraph open_graph(const std::filesystem::path& path, const StopToken* stop) {
  if (stop) stop->enter("during import");
  OpenedGraph opened{graph_file(path), nullptr, std::nullopt};
  opened.text = std::make_unique<FileText>(opened.file);
  opened.sniffed = graphdef::sniff(opened.file, opened.text->text());
  return opened;
}

}  // namespace

LoadedGraph load_graph_file(const std::filesystem::path& path, const graphdef::ImportOptions& options,
                            const graphdef::MetaGraphChoice& choice) {
  const auto opened = open_graph(path, options.stop);
  return read_graph_file(path, opened.file, opened.text->text(), opened.sniffed, options, choice);
}

std::shared_ptr<const Program> load_program(const std::filesystem::path& file, const LoadOptions& options,
                                            const std::function<void(const std::string&)>& on_note) {
  try {
    std::vector<std::pair<std::string, std::string>> feeds;
    auto import = options.import;
    import.feeds.clear();
    for (const auto& f : options.feeds) {
      feeds.push_back(split_feed(f));
      import.feeds.push_back(feeds.back().first);
    }
    const auto* stop = options.import.stop;
    auto opened = open_graph(file, stop);
    std::shared_ptr<const Program> program;
    auto fetches = import.fetches;
    bool pruned = false;
    if (!opened.sniffed && feeds.empty()) {
      // tfsem's JSON with nothing to feed: built as it is read.
      refuse_options(import, options.choice, opened.file.string(), true);
      program = build_program_text(opened.text->text(), opened.file.string(), stop);
      opened.text.reset();
    } else {
      auto loaded = read_graph_file(file, opened.file, opened.text->text(), opened.sniffed, import, options.choice);
      opened.text.reset();  // read: the text goes before the graph is validated
      if (on_note)
        for (const auto& note : loaded.notes) on_note(note);
      for (std::size_t k = 0; k < feeds.size(); ++k) {
        // An imported graph's feed names a placeholder: its input edge, if the run consumes it.
        const auto& edge = loaded.fed.empty() ? feeds[k].first : loaded.fed[k];
        if (!edge.empty()) apply_feed(loaded.spec, edge + "=" + feeds[k].second);
        else parse_tensor(parse_json_text(feeds[k].second, "--feed " + feeds[k].first), "--feed " + feeds[k].first);  // unused, but a value
      }
      if (stop) stop->enter("during validation");
      program = Program::build(std::move(loaded.spec), stop);
      fetches = std::move(loaded.fetches);
      pruned = loaded.pruned;
    }
    if (options.prune || (!fetches.empty() && !pruned)) program = tfsem::prune(*program, fetches);
    StopPoll(stop).check();
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
