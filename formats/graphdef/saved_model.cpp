#include "formats/graphdef/saved_model.hpp"

#include "semantics/diagnostic.hpp"

#include <algorithm>
#include <map>
#include <set>

namespace tfsem::graphdef {

namespace {

std::string join(const std::vector<std::string>& items, const std::string& separator = ", ") {
  std::string out;
  for (const auto& x : items) out += (out.empty() ? "" : separator) + x;
  return out;
}

std::set<std::string> tags_of(const MetaGraphDef& g) {
  return {g.meta_info_def().tags().begin(), g.meta_info_def().tags().end()};
}

std::string tags_text(const MetaGraphDef& g) {
  const auto tags = tags_of(g);
  return tags.empty() ? "(no tags)" : join({tags.begin(), tags.end()}, ",");
}

std::set<std::string> split_tags(const std::string& text) {
  std::set<std::string> out;
  for (std::size_t begin = 0; begin <= text.size();) {
    const auto end = std::min(text.find(',', begin), text.size());
    if (end > begin) out.insert(text.substr(begin, end - begin));
    begin = end + 1;
  }
  return out;
}

[[noreturn]] void refuse(const std::string& option, const std::string& message) {
  throw InputError("I-OPTION", option, "", message);
}

// The MetaGraph the tags choose (see MetaGraphChoice::tag).
std::size_t choose_meta_graph(const std::vector<MetaGraphDef>& graphs, const std::string& tag) {
  std::vector<std::string> all;
  for (const auto& g : graphs) all.push_back(tags_text(g));
  const auto listed = " (the MetaGraphs' tags: " + join(all, "; ") + ")";
  if (graphs.empty()) refuse("--tag", "the SavedModel has no MetaGraph");
  std::set<std::string> wanted = split_tags(tag);
  if (wanted.empty()) {
    const bool serve = std::any_of(graphs.begin(), graphs.end(), [](const MetaGraphDef& g) { return tags_of(g).count("serve"); });
    if (!serve && graphs.size() == 1) return 0;
    if (!serve) refuse("--tag", "the SavedModel has " + std::to_string(graphs.size()) + " MetaGraphs and none is tagged serve; choose one with --tag" + listed);
    wanted = {"serve"};
  }
  std::vector<std::size_t> fit, exact;
  for (std::size_t k = 0; k < graphs.size(); ++k) {
    const auto tags = tags_of(graphs[k]);
    if (std::includes(tags.begin(), tags.end(), wanted.begin(), wanted.end())) fit.push_back(k);
    if (tags == wanted) exact.push_back(k);
  }
  const auto named = "'" + join({wanted.begin(), wanted.end()}, ",") + "'";
  if (fit.size() == 1) return fit[0];
  if (exact.size() == 1) return exact[0];
  if (fit.empty()) refuse("--tag", "no MetaGraph is tagged " + named + listed);
  refuse("--tag", std::to_string(fit.size()) + " MetaGraphs are tagged " + named + "; name all the tags of one" + listed);
}

// The tensors of a signature's inputs or outputs, by key; sparse and composite ones are listed apart.
std::vector<std::string> tensors(const google::protobuf::Map<std::string, TensorInfo>& infos, const std::string& what,
                                 std::vector<std::string>& notes) {
  const std::map<std::string, const TensorInfo*> by_key = [&] {
    std::map<std::string, const TensorInfo*> m;
    for (const auto& [key, info] : infos) m.emplace(key, &info);
    return m;
  }();
  std::vector<std::string> out, left;
  for (const auto& [key, info] : by_key) (info->name().empty() ? left : out).push_back(info->name().empty() ? key : info->name());
  if (!left.empty()) notes.push_back("signature " + what + " that are not one tensor (sparse or composite), left out: " + join(left));
  return out;
}

}  // namespace

ChosenGraph choose_graph(std::vector<MetaGraphDef>& meta_graphs, const MetaGraphChoice& choice) {
  ChosenGraph out;
  auto& meta = meta_graphs[choose_meta_graph(meta_graphs, choice.tag)];
  if (meta_graphs.size() > 1) out.notes.push_back("MetaGraph tagged " + tags_text(meta) + ", of " + std::to_string(meta_graphs.size()) + " (--tag chooses another)");
  std::vector<std::string> keys;
  for (const auto& [key, signature] : meta.signature_def()) keys.push_back(key);
  std::sort(keys.begin(), keys.end());
  auto name = choice.signature;
  if (name.empty() && meta.signature_def().count("serving_default")) name = "serving_default";
  if (!name.empty() && !meta.signature_def().count(name))
    refuse("--signature", "no signature '" + name + "' in the MetaGraph tagged " + tags_text(meta) +
                              (keys.empty() ? std::string(", which has none") : "; it has " + join(keys)));
  if (name.empty()) {
    if (!keys.empty()) out.notes.push_back("signatures, none chosen (--signature NAME feeds and fetches one): " + join(keys));
  } else {
    const auto& signature = meta.signature_def().at(name);
    out.inputs = tensors(signature.inputs(), "inputs", out.notes);
    out.outputs = tensors(signature.outputs(), "outputs", out.notes);
    out.notes.push_back("signature " + name + ": inputs " + (out.inputs.empty() ? "none" : join(out.inputs)) +
                        " (placeholders to feed), outputs " + (out.outputs.empty() ? "none" : join(out.outputs)) +
                        " (fetched unless --fetch names others)");
  }
  out.graph.Swap(meta.mutable_graph_def());
  return out;
}

}  // namespace tfsem::graphdef
