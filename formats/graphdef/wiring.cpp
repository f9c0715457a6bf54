#include "formats/graphdef/wiring.hpp"

#include <stdexcept>

namespace tfsem::graphdef {

void Wiring::reserve(std::size_t nodes) {
  nodes_spec_.reserve(nodes);
  info_.reserve(nodes);
  nodes_.reserve(nodes);
  edges_.reserve(2 * nodes);
  values_.reserve(nodes);
}

void Wiring::node(std::string id, std::string op, Attrs attrs, std::string ports, const std::string& where, std::string var) {
  const auto n = ports.size();
  nodes_.emplace(id, nodes_spec_.size());
  info_.push_back({std::move(ports), std::vector<bool>(n, false)});
  nodes_spec_.push_back({std::move(id), std::move(op), std::move(var), std::move(attrs), where});
}

Wiring::Source Wiring::port(const std::string& node, std::uint32_t port) {
  values_.push_back({Value::Kind::port, node, port, Tensor::atom("_"), "", {}});
  return values_.size() - 1;
}

Wiring::Source Wiring::literal(const std::string& name, Tensor value, const std::string& where) {
  values_.push_back({Value::Kind::literal, name, 0, std::move(value), where, {}});
  return values_.size() - 1;
}

Wiring::Source Wiring::feed(const std::string& edge, Tensor stand_in, const std::string& where) {
  values_.push_back({Value::Kind::feed, edge, 0, std::move(stand_in), where, {}});
  return values_.size() - 1;
}

void Wiring::consume(Source s, const std::string& node, std::uint32_t port) { values_[s].consumers.push_back({node, port, ""}); }

void Wiring::fetch(Source s, const std::string& fetch) { values_[s].consumers.push_back({"", 0, fetch}); }

std::size_t Wiring::node_index(std::string_view name) const {
  const auto it = nodes_.find(name);
  if (it == nodes_.end()) throw std::logic_error("Wiring: no node '" + std::string(name) + "' was added");
  return it->second;
}

void Wiring::add_edge(EdgeSpec e) {
  if (e.kind == "control" && !control_ids_.insert(e.id.str()).second) return;  // the same dependency, named twice
  if (e.from && e.kind != "control") info_[node_index(e.from->node)].wired.at(static_cast<std::size_t>(*e.from->port)) = true;
  if (e.to) info_[node_index(e.to->node)].has_input = true;
  edges_.push_back(std::move(e));
}

void Wiring::variable_edge(const std::string& from, std::uint32_t from_port, const std::string& to, std::uint32_t to_port) {
  add_edge({from + ":" + std::to_string(from_port), "variable", from_port_ref(from, from_port), from_port_ref(to, to_port),
            {}, std::nullopt, ""});
}

void Wiring::control(const std::string& from, const std::string& to) {
  add_edge({"^" + from + "->" + to, "control", PortRef{from, std::nullopt}, PortRef{to, std::nullopt}, {}, std::nullopt, ""});
}

void Wiring::control_input(const std::string& from, const std::string& to) {
  add_edge({"^" + from + "->" + to, "control", std::nullopt, PortRef{to, std::nullopt}, Go{}, std::nullopt, ""});
}

void Wiring::target(const std::string& node, const std::string& fetch) {
  add_edge({"^" + node, "control", PortRef{node, std::nullopt}, std::nullopt, {}, fetch, nodes_spec_[node_index(node)].where});
}

void Wiring::distribute(const Value& v, EdgeSpec first, const std::vector<Consumer>& consumers, const std::string& base) {
  auto deliver = [&](EdgeSpec e, const Consumer& c) {
    if (c.node.empty()) e.fetch = c.fetch;
    else e.to = from_port_ref(c.node, c.port);
    add_edge(std::move(e));
  };
  if (consumers.size() == 1) return deliver(std::move(first), consumers[0]);
  // A chain of Copy nodes: copy i gives consumer i its port 0 and passes the value on on port 1.
  const auto copy = [&](std::size_t i) { return base + "copy" + std::to_string(i + 1); };
  for (std::size_t i = 0; i + 1 < consumers.size(); ++i) node(copy(i), "Copy", {}, "tt", v.where);
  first.to = from_port_ref(copy(0), 0);
  add_edge(std::move(first));
  for (std::size_t i = 0; i + 1 < consumers.size(); ++i) {
    const auto c = copy(i);
    deliver({c + ":0", "tensor", from_port_ref(c, 0), std::nullopt, {}, std::nullopt, v.where}, consumers[i]);
    EdgeSpec on{c + ":1", "tensor", from_port_ref(c, 1), std::nullopt, {}, std::nullopt, v.where};
    if (i + 2 < consumers.size()) {
      on.to = from_port_ref(copy(i + 1), 0);
      add_edge(std::move(on));
    } else {
      deliver(std::move(on), consumers.back());
    }
  }
}

void Wiring::wire(const Value& v) {
  if (v.consumers.empty()) return;
  switch (v.kind) {
    case Value::Kind::port: {
      const auto base = v.node + "@" + (v.port == 0 ? "" : std::to_string(v.port) + ".");
      const auto id = v.node + ":" + std::to_string(v.port);
      return distribute(v, {id, "tensor", from_port_ref(v.node, v.port), std::nullopt, {}, std::nullopt, v.where}, v.consumers,
                        base);
    }
    case Value::Kind::literal: {
      std::vector<Consumer> fetched;
      for (const auto& c : v.consumers) {
        if (c.node.empty()) fetched.push_back(c);
        else
          add_edge({v.node + "->" + c.node + ":" + std::to_string(c.port), "tensor", std::nullopt,
                    from_port_ref(c.node, c.port), v.value, std::nullopt, v.where});
      }
      if (fetched.empty()) return;
      // A fetched constant needs a node to leave.
      node(v.node, "Const", {{"value", v.value}}, "t", v.where);
      return distribute(v, {v.node + ":0", "tensor", from_port_ref(v.node, 0), std::nullopt, {}, std::nullopt, v.where},
                        fetched, v.node + "@");
    }
    case Value::Kind::feed: {
      EdgeSpec first{v.node, "tensor", std::nullopt, std::nullopt, v.value, std::nullopt, v.where};
      if (v.consumers.size() > 1 || !v.consumers[0].node.empty()) return distribute(v, std::move(first), v.consumers, v.node + "@");
      // Fetched and read by nothing else: through an Identity, since an edge needs one end.
      const auto id = v.node + "@fetch";
      node(id, "Identity", {}, "t", v.where);
      first.to = from_port_ref(id, 0);
      add_edge(std::move(first));
      return distribute(v, {id + ":0", "tensor", from_port_ref(id, 0), std::nullopt, {}, std::nullopt, v.where}, v.consumers,
                        id + "@");
    }
  }
}

void Wiring::finish(ProgramSpec& spec, const StopToken* stop) {
  StopPoll poll(stop, 64);
  for (const auto& v : values_) {
    poll.tick_check();
    wire(v);
  }
  for (std::size_t i = 0; i < nodes_spec_.size(); ++i) {
    poll.tick_check();
    const auto& n = nodes_spec_[i];
    for (std::size_t p = 0; p < info_[i].ports.size(); ++p)
      if (!info_[i].wired[p])
        add_edge({n.id + ":" + std::to_string(p), info_[i].ports[p] == 'v' ? "variable" : "tensor",
                  from_port_ref(n.id, static_cast<std::uint32_t>(p)),
                  std::nullopt, {}, std::string(), n.where});
    if (!info_[i].has_input)
      add_edge({n.id + "@go", "control", std::nullopt, PortRef{n.id, std::nullopt}, Go{}, std::nullopt, n.where});
  }
  spec.nodes = std::move(nodes_spec_);
  spec.edges = std::move(edges_);
}

}  // namespace tfsem::graphdef
