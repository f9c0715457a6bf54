#include "semantics/partition.hpp"

#include "semantics/device.hpp"
#include "semantics/diagnostic.hpp"
#include "semantics/functions.hpp"

#include <algorithm>
#include <memory>
#include <unordered_set>
#include <utility>

namespace tfsem {

namespace {

// X-PARTITION: placement (place), then a pair per value read on another
// device (cut_value) and per device a node's control edges reach (cut_control).
class Partitioner {
 public:
  Partitioner(ProgramSpec spec, const PartitionOptions& options)
      : spec_(make_static(std::move(spec))), o_(options), p_(Program::build(spec_)) {
    for (const auto& n : spec_.nodes) names_.insert(n.id.str());
    for (const auto& e : spec_.edges) names_.insert(e.id.str());
  }

  ProgramSpec run() {
    place();
    node_gone_.assign(spec_.nodes.size(), false);
    edge_gone_.assign(spec_.edges.size(), false);
    for (std::size_t n = 0; n < spec_.nodes.size(); ++n) {
      if (!absorbed(NodeId(n)))
        for (auto e : p_->node(NodeId(n)).out) cut_value(e);
      cut_control(NodeId(n));
    }
    ProgramSpec out = spec_;
    out.nodes.clear();
    out.edges.clear();
    for (std::size_t n = 0; n < spec_.nodes.size(); ++n)
      if (!node_gone_[n]) {
        out.nodes.push_back(spec_.nodes[n]);
        out.nodes.back().device = dev_[n];
      }
    for (std::size_t e = 0; e < spec_.edges.size(); ++e)
      if (!edge_gone_[e]) out.edges.push_back(spec_.edges[e]);
    for (auto& n : added_nodes_) out.nodes.push_back(std::move(n));
    for (auto& e : added_edges_) out.edges.push_back(std::move(e));
    return out;
  }

 private:
  ProgramSpec spec_;
  const PartitionOptions& o_;
  std::shared_ptr<const Program> p_;
  std::vector<std::string> dev_;  // by node
  std::unordered_set<std::string> names_;  // node and edge ids in use
  std::vector<bool> node_gone_, edge_gone_;
  std::vector<NodeSpec> added_nodes_;
  std::vector<EdgeSpec> added_edges_;

  [[nodiscard]] OpKind kind(NodeId n) const { return p_->node(n).op.kind; }
  [[nodiscard]] const Edge& edge(EdgeId e) const { return p_->edge(e); }

  // An id not yet used, from `base`.
  std::string fresh(const std::string& base) {
    auto id = base;
    for (int k = 2; !names_.insert(id).second; ++k) id = base + "#" + std::to_string(k);
    return id;
  }
  // A node id from a key or a tensor's name: an edge's end is NODE or
  // NODE:PORT, so its ':' (a port's, a TensorFlow device name's) become '_'.
  static std::string node_name(std::string text) {
    std::replace(text.begin(), text.end(), ':', '_');
    return text;
  }
  // Edge e leaves the graph; made again, it keeps its id, unless `free`.
  void forget(EdgeId e, bool free = false) {
    edge_gone_[e.index()] = true;
    if (free) names_.erase(spec_.edges[e.index()].id.str());
  }

  // An edge a pair can be put on: between two nodes, neither closing a loop
  // nor carrying a loop invariant, nor entering or leaving a call, not a
  // rendezvous already; a variable edge only into a dereferencing function.
  [[nodiscard]] bool cuttable(EdgeId id) const {
    const auto& e = edge(id);
    if (e.is_input() || e.is_output() || e.back || e.call || e.invariant) return false;
    if (kind(e.src) == OpKind::send || kind(e.src) == OpKind::call || kind(e.dst) == OpKind::return_) return false;
    // An Enter puts its value in iteration 0 only (C-ENTER): a pair after it, in
    // the loop, would wait in every later iteration. The Enter goes with its
    // consumer instead (place), and the edge into it is cut.
    if (kind(e.src) == OpKind::enter) return false;
    return e.kind != EdgeKind::variable || kind(e.dst) == OpKind::function;
  }
  // A Copy that only shares its input's value (G-FANOUT), and goes with it.
  [[nodiscard]] bool absorbed(NodeId n) const {
    const auto& node = p_->node(n);
    return node.op.kind == OpKind::function && node.op.fn->name == "Copy" && node.control_in.empty() &&
           node.control_out.empty() && cuttable(node.in[0]);
  }

  // G-DEVICE, and each node's device: its own or by turns, then its
  // variable's, or for a Copy sharing a value, the value's producer's.
  void place() {
    std::vector<Diagnostic> problems;
    for (const auto& d : o_.devices)
      if (const auto why = device_problem(d); !why.empty() || d.empty())
        problems.push_back({"G-DEVICE", "--devices", "device '" + d + "'", d.empty() ? "a device needs a name" : why});
    if (o_.assign == PartitionOptions::Assign::round_robin && o_.devices.empty())
      problems.push_back({"G-DEVICE", "--devices", "", "--assign round-robin needs the devices to place nodes on"});
    if (!problems.empty()) throw InputError(std::move(problems));
    dev_.assign(spec_.nodes.size(), "");
    std::size_t turn = 0;
    for (auto n : p_->topological_order()) {
      auto& d = dev_[n.index()];
      const auto& node = p_->node(n);
      if (o_.assign == PartitionOptions::Assign::round_robin) d = o_.devices[turn++ % o_.devices.size()];
      else d = spec_.nodes[n.index()].device.empty() && !o_.devices.empty() ? o_.devices[0] : spec_.nodes[n.index()].device.str();
      for (auto e : node.in)
        if (e.valid() && !edge(e).is_input() && edge(e).kind == EdgeKind::variable && node.op.kind != OpKind::function)
          d = dev_[edge(e).src.index()];
      if (absorbed(n)) d = dev_[edge(node.in[0]).src.index()];
      if (d.empty())
        problems.push_back({"G-DEVICE", p_->where(node), "node '" + node.name() + "'", "has no device; name one with --devices"});
    }
    if (!problems.empty()) throw InputError(std::move(problems));
    // An Enter on its value's consumer's device (an Enter into an Enter, in turn).
    for (bool moved = true; moved;) {
      moved = false;
      for (std::size_t n = 0; n < dev_.size(); ++n) {
        const auto& node = p_->node(NodeId(n));
        if (node.op.kind != OpKind::enter || node.op.ref || node.out.empty() || edge(node.out[0]).is_output()) continue;
        const auto& to = dev_[edge(node.out[0]).dst.index()];
        if (dev_[n] != to) dev_[n] = to, moved = true;
      }
    }
  }

  [[nodiscard]] bool needs_pair(EdgeId e, const std::string& from) const {
    return cuttable(e) && (o_.every_edge || dev_[edge(e).dst.index()] != from);
  }

  // The edges that carry root's value to its consumers, through the Copy
  // nodes that share it (`copies`, and the edges into them, `inner`).
  void collect(EdgeId e, std::vector<EdgeId>& leaves, std::vector<NodeId>& copies, std::vector<EdgeId>& inner) const {
    const auto& ed = edge(e);
    if (ed.is_output() || !absorbed(ed.dst)) return leaves.push_back(e);
    copies.push_back(ed.dst);
    inner.push_back(e);
    for (auto o : p_->node(ed.dst).out) collect(o, leaves, copies, inner);
  }

  EdgeSpec& add_edge(std::string id, const char* kind, PortRef from, OptionalPortRef to, const CompactString& where) {
    added_edges_.push_back({id, kind, std::move(from), std::move(to), {}, std::nullopt, where});
    return added_edges_.back();
  }
  void add_node(const std::string& id, const char* op, const std::string& device, const CompactString& where, Attrs attrs = {}) {
    added_nodes_.push_back({id, op, "", std::move(attrs), where, device});
  }

  // A Send on device `from` and its Recv on `to`, the rendezvous between
  // them named by the key: the edge into the Send (its source to be set) and
  // the Recv's id.
  struct Pair {
    EdgeSpec into_send;
    std::string recv;
  };
  Pair pair(const std::string& from, const std::string& to, const std::string& tensor, const char* kind,
            const CompactString& where) {
    const auto key = from + ";" + to + ";" + tensor;
    const auto send = fresh("send/" + node_name(key)), recv = fresh("recv/" + node_name(key));
    add_node(send, "Send", from, where);
    add_node(recv, "Recv", to, where);
    add_edge(fresh(key), "tensor", PortRef{send, 0}, PortRef{recv, 0}, where);
    return {{fresh(key + "/send"), kind, std::nullopt, PortRef{send, 0}, {}, std::nullopt, where}, recv};
  }

  // The value on root's port, its consumers on other devices given one Recv
  // each: the Copy nodes that shared it are made again, on the producer's
  // device, for the consumers left there and the Sends.
  void cut_value(EdgeId root) {
    std::vector<EdgeId> leaves, inner;
    std::vector<NodeId> copies;
    collect(root, leaves, copies, inner);
    const auto& r = edge(root);
    const auto& from = dev_[r.src.index()];
    if (std::none_of(leaves.begin(), leaves.end(), [&](EdgeId e) { return needs_pair(e, from); })) return;
    const auto& where = spec_.edges[root.index()].where;
    const auto tensor = p_->node(r.src).name().str() + ":" + std::to_string(r.src_port);
    std::vector<EdgeSpec> sinks;  // what the producer's port feeds, each without its source yet
    std::vector<std::pair<std::string, std::vector<EdgeId>>> groups;  // by the consumers' device
    for (auto e : leaves) {
      forget(e);
      if (!needs_pair(e, from)) {
        sinks.push_back(spec_.edges[e.index()]);
        continue;
      }
      const auto& to = dev_[edge(e).dst.index()];
      auto g = std::find_if(groups.begin(), groups.end(), [&](const auto& x) { return x.first == to; });
      if (g == groups.end()) g = groups.insert(g, {to, {}});
      g->second.push_back(e);
    }
    for (auto e : inner) forget(e, true);
    for (auto c : copies) node_gone_[c.index()] = true;
    const char* kind = r.kind == EdgeKind::variable ? "variable" : "tensor";
    for (const auto& [to, consumers] : groups) {
      auto [into_send, recv] = pair(from, to, tensor, kind, where);
      sinks.push_back(std::move(into_send));
      for (std::uint32_t j = 0; j < consumers.size(); ++j) {
        auto e = spec_.edges[consumers[j].index()];
        e.from = PortRef{recv, j};
        e.kind = "tensor";  // a dereferencing function's variable edge, copied: its value
        added_edges_.push_back(std::move(e));
      }
    }
    share(PortRef{p_->node(r.src).name(), r.src_port}, tensor, from, std::move(sinks), spec_.edges[root.index()].id.str(), where);
  }

  // The chain of Copy nodes that gives the value on `port` to each sink.
  void share(PortRef port, const std::string& tensor, const std::string& device, std::vector<EdgeSpec> sinks,
             const std::string& root_id, const CompactString& where) {
    auto connect = [&](EdgeSpec e, PortRef src) {
      e.from = std::move(src);
      added_edges_.push_back(std::move(e));
    };
    if (sinks.size() == 1) return connect(std::move(sinks[0]), std::move(port));
    auto copy = fresh(node_name(tensor) + "/copy");
    add_node(copy, "Copy", device, where);
    add_edge(fresh(root_id), "tensor", std::move(port), PortRef{copy, 0}, where);
    for (std::size_t i = 0; i + 1 < sinks.size(); ++i) {
      connect(std::move(sinks[i]), PortRef{copy, 0});
      if (i + 2 == sinks.size()) return connect(std::move(sinks.back()), PortRef{copy, 1});
      const auto next = fresh(node_name(tensor) + "/copy");
      add_node(next, "Copy", device, where);
      add_edge(fresh(copy + ":1"), "tensor", PortRef{copy, 1}, PortRef{next, 0}, where);
      copy = next;
    }
  }

  // n's control edges to other devices, one dummy tensor per device: a Const
  // that n's control edge triggers, sent to a Recv whose control edges reach them.
  void cut_control(NodeId n) {
    const auto& from = dev_[n.index()];
    std::vector<std::pair<std::string, std::vector<EdgeId>>> groups;
    for (auto e : p_->node(n).control_out) {
      if (!needs_pair(e, from)) continue;
      const auto& to = dev_[edge(e).dst.index()];
      auto g = std::find_if(groups.begin(), groups.end(), [&](const auto& x) { return x.first == to; });
      if (g == groups.end()) g = groups.insert(g, {to, {}});
      g->second.push_back(e);
    }
    const auto& name = p_->node(n).name().str();
    const auto& where = spec_.nodes[n.index()].where;
    for (const auto& [to, targets] : groups) {
      auto [into_send, recv] = pair(from, to, "^" + name, "tensor", where);
      const auto dummy = fresh("dummy/" + node_name(from + ";" + to + ";^" + name));
      add_node(dummy, "Const", from, where, Attrs{{"value", Tensor::scalar(std::int32_t{0})}});
      add_edge(fresh("^" + name + "->" + dummy), "control", PortRef{name, std::nullopt}, PortRef{dummy, std::nullopt}, where);
      into_send.from = PortRef{dummy, 0};
      added_edges_.push_back(std::move(into_send));
      for (auto e : targets) {
        forget(e);
        auto c = spec_.edges[e.index()];
        c.from = PortRef{recv, std::nullopt};
        added_edges_.push_back(std::move(c));
      }
    }
  }
};

}  // namespace

ProgramSpec partition(ProgramSpec spec, const PartitionOptions& options) { return Partitioner(std::move(spec), options).run(); }

}  // namespace tfsem
