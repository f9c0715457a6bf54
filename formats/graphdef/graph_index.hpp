// A GraphDef's nodes with their inputs resolved: "x:1" to output 1 of node x,
// "^x" to a control input. Every name problem is an InputError (I-NODE) that
// names the node and the input.
#pragma once

#include "formats/graphdef/graphdef.pb.h"
#include "support/stop_token.hpp"

#include <compare>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace tfsem::graphdef {

// Output `port` of TF node `node` (an index into the GraphDef's nodes).
struct TfOutput {
  std::uint32_t node = 0, port = 0;
  auto operator<=>(const TfOutput&) const = default;
};

struct TfNode {
  const NodeDef* def = nullptr;
  std::vector<TfOutput> inputs;        // data inputs, by port
  std::vector<std::uint32_t> control;  // control inputs, each once
  std::string where;                   // "node 3 'x'"
};

class GraphIndex {
 public:
  // Throws InputError, and Stopped when `stop` (may be null) stops the work.
  explicit GraphIndex(const GraphDef& graph, const StopToken* stop = nullptr);

  [[nodiscard]] const std::vector<TfNode>& nodes() const { return nodes_; }
  [[nodiscard]] const TfNode& node(std::uint32_t i) const { return nodes_[i]; }
  [[nodiscard]] const std::string& name(std::uint32_t i) const { return nodes_[i].def->name(); }
  [[nodiscard]] std::optional<std::uint32_t> find(std::string_view name) const;
  // The number of outputs consumers use: one past the highest port read.
  [[nodiscard]] std::uint32_t ports_used(std::uint32_t i) const { return ports_used_[i]; }
  // Whether output `out` has a consumer.
  [[nodiscard]] bool consumed(TfOutput out) const {
    if (out.port >= ports_used_[out.node]) return false;
    return out.port < 64 ? (used_[out.node] >> out.port & 1U) != 0 : used_beyond_.count(key(out)) != 0;
  }
  // "x:1" or "x": output 1 or 0 of node x, or nullopt when `text` is not of that form.
  static std::optional<std::pair<std::string_view, std::uint32_t>> split_output(std::string_view text);

 private:
  std::vector<TfNode> nodes_;
  std::unordered_map<std::string_view, std::uint32_t> index_;
  std::vector<std::uint32_t> ports_used_;
  std::vector<std::uint64_t> used_;              // bit p: output p has a consumer
  std::unordered_set<std::uint64_t> used_beyond_;  // key(output) of the outputs past 63 with a consumer

  static std::uint64_t key(TfOutput o) { return std::uint64_t{o.node} << 32 | o.port; }
};

}  // namespace tfsem::graphdef
