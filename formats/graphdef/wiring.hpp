// The tfsem graph an import builds: nodes, the values that flow between them
// and the edges that carry them. A value read by several consumers goes
// through a chain of Copy nodes (G-FANOUT); a constant's value goes on an input
// edge of each consumer; an output nobody reads leaves on an output edge that
// is not fetched; a node with no incoming edge gets a GO input edge (G-TRIGGER).
// An edge between two nodes has no place of its own: its id names its source.
#pragma once

#include "support/hash.hpp"
#include "support/stop_token.hpp"
#include "semantics/program.hpp"

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

namespace tfsem::graphdef {

class Wiring {
 public:
  using Source = std::size_t;

  // A node with its output ports, one character each: 't' a tensor, 'v' a variable.
  void node(std::string id, std::string op, Attrs attrs, std::string ports, const std::string& where, std::string var = "");
  // Room for about this many nodes.
  void reserve(std::size_t nodes);
  // Where a value comes from: an output port, a constant, or an input edge to feed.
  Source port(const std::string& node, std::uint32_t port);
  Source literal(const std::string& name, Tensor value, const std::string& where);
  Source feed(const std::string& edge, Tensor stand_in, const std::string& where);
  // A consumer of a value: a tensor input port, or an output edge fetched as `fetch`.
  void consume(Source s, const std::string& node, std::uint32_t port);
  void fetch(Source s, const std::string& fetch);

  void variable_edge(const std::string& from, std::uint32_t from_port, const std::string& to, std::uint32_t to_port);
  void control(const std::string& from, const std::string& to);
  // An input control edge: a dependency on a node that needs no firing (a constant, a placeholder).
  void control_input(const std::string& from, const std::string& to);
  // An output control edge fetched as `fetch`: a target the run must execute.
  void target(const std::string& node, const std::string& fetch);

  // Copy chains, constants, unread outputs and triggers: the finished spec.
  // Throws Stopped when `stop` (may be null) stops the work.
  void finish(ProgramSpec& spec, const StopToken* stop = nullptr);

 private:
  struct Consumer {
    std::string node;  // "" for an output edge
    std::uint32_t port = 0;
    std::string fetch;
  };
  struct Value {
    enum class Kind : std::uint8_t { port, literal, feed } kind;
    std::string node;  // port: the producer; literal: the constant's name; feed: the edge id
    std::uint32_t port = 0;
    Tensor value;  // literal, feed
    std::string where;
    std::vector<Consumer> consumers;
  };
  struct NodeInfo {
    std::string ports;        // 't' or 'v' per output port
    std::vector<bool> wired;  // per output port
    bool has_input = false;
  };

  std::vector<NodeSpec> nodes_spec_;
  std::vector<NodeInfo> info_;  // beside nodes_spec_
  TextMap<std::size_t> nodes_;
  std::vector<EdgeSpec> edges_;
  std::vector<Value> values_;
  std::unordered_set<std::string> control_ids_;  // a dependency named twice is one edge

  // The position of node `name` in nodes_spec_; it must have been added.
  [[nodiscard]] std::size_t node_index(std::string_view name) const;
  void add_edge(EdgeSpec e);
  static PortRef from_port_ref(std::string_view node, std::uint32_t port) { return {node, port}; }
  void wire(const Value& v);
  // Delivers a value to its consumers: `first` (its edge out of the producer,
  // or an input edge) goes to the one consumer, or into a chain of Copy nodes
  // named base + "copy1", base + "copy2", ...
  void distribute(const Value& v, EdgeSpec first, const std::vector<Consumer>& consumers, const std::string& base);
};

}  // namespace tfsem::graphdef
