#include "formats/graphdef/graph_index.hpp"

#include "semantics/diagnostic.hpp"

#include <algorithm>
#include <cctype>

namespace tfsem::graphdef {

namespace {

// TensorFlow's node names: [A-Za-z0-9._][A-Za-z0-9_./>-]*. tfsem names the
// nodes it adds with '@', which no TensorFlow name has.
bool valid_name(std::string_view s) {
  if (s.empty()) return false;
  auto ok = [](char c, bool first) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' ||
           (!first && (c == '/' || c == '-' || c == '>'));
  };
  if (!ok(s[0], true)) return false;
  return std::all_of(s.begin() + 1, s.end(), [&](char c) { return ok(c, false); });
}

}  // namespace

std::optional<std::pair<std::string_view, std::uint32_t>> GraphIndex::split_output(std::string_view text) {
  const auto colon = text.rfind(':');
  if (colon == std::string_view::npos) return std::pair{text, 0U};
  const auto digits = text.substr(colon + 1);
  if (digits.empty() || digits.size() > 6 || !std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; }))
    return std::nullopt;
  std::uint32_t port = 0;
  for (char c : digits) port = port * 10 + static_cast<std::uint32_t>(c - '0');
  return std::pair{text.substr(0, colon), port};
}

std::optional<std::uint32_t> GraphIndex::find(std::string_view name) const {
  const auto it = index_.find(name);
  return it == index_.end() ? std::nullopt : std::optional(it->second);
}

GraphIndex::GraphIndex(const GraphDef& graph, const StopToken* stop) {
  StopPoll poll(stop, 64);
  std::vector<Diagnostic> diags;
  auto error = [&](const std::string& where, const std::string& subject, const std::string& message) {
    diags.push_back({"I-NODE", where, subject, message});
  };
  const auto n = static_cast<std::uint32_t>(graph.node_size());
  nodes_.resize(n);
  index_.reserve(n);
  ports_used_.assign(n, 0);
  used_.assign(n, 0);
  for (std::uint32_t i = 0; i < n; ++i) {
    poll.tick_check();
    const auto& def = graph.node(static_cast<int>(i));
    nodes_[i].def = &def;
    nodes_[i].where = "node " + std::to_string(i) + " '" + def.name() + "'";
    if (!valid_name(def.name()))
      error("node " + std::to_string(i), "name '" + def.name() + "'",
            "not a TensorFlow node name ([A-Za-z0-9._] then [A-Za-z0-9_./>-])");
    else if (!index_.emplace(def.name(), i).second)
      error(nodes_[i].where, "", "a second node with this name (the first is node " + std::to_string(index_[def.name()]) + ")");
    if (def.op().empty()) error(nodes_[i].where, "field op", "the node has no op");
  }
  for (std::uint32_t i = 0; i < n; ++i) {
    poll.tick_check();
    auto& node = nodes_[i];
    for (int k = 0; k < node.def->input_size(); ++k) {
      const std::string& text = node.def->input(k);
      const auto subject = "input " + std::to_string(k) + " '" + text + "'";
      const bool control = text.starts_with('^');
      if (!control && !node.control.empty()) {
        error(node.where, subject, "a data input after a control input; control inputs (^name) come last");
        continue;
      }
      const auto parsed = control ? std::optional(std::pair{std::string_view(text).substr(1), 0U}) : split_output(text);
      if (!parsed) {
        error(node.where, subject, "not NAME, NAME:PORT or ^NAME");
        continue;
      }
      const auto src = find(parsed->first);
      if (!src) {
        error(node.where, subject, "no node '" + std::string(parsed->first) + "' in the graph");
        continue;
      }
      if (control) {
        if (std::find(node.control.begin(), node.control.end(), *src) == node.control.end()) node.control.push_back(*src);
        continue;
      }
      node.inputs.push_back({*src, parsed->second});
      ports_used_[*src] = std::max(ports_used_[*src], parsed->second + 1);
      if (parsed->second < 64) used_[*src] |= std::uint64_t{1} << parsed->second;
      else used_beyond_.insert(key({*src, parsed->second}));
    }
  }
  if (!diags.empty()) throw InputError(std::move(diags));
}

}  // namespace tfsem::graphdef
