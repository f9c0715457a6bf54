#include "semantics/program.hpp"

#include "semantics/device.hpp"
#include "semantics/diagnostic.hpp"
#include "semantics/frames.hpp"
#include "semantics/functions.hpp"
#include "support/hash.hpp"


#include <algorithm>
#include <array>
#include <cassert>
#include <cctype>
#include <cstdio>
#include <map>
#include <stdexcept>
#include <tuple>
#include <unordered_map>
#include <utility>

namespace tfsem {

std::vector<BodyEdgeSpec> body_edges(std::vector<EdgeSpec> edges) {
  std::vector<BodyEdgeSpec> out;
  out.reserve(edges.size());
  for (auto& e : edges) out.push_back({std::move(e)});
  return out;
}

std::string_view edge_kind_name(EdgeKind k) {
  switch (k) {
    case EdgeKind::tensor: return "tensor";
    case EdgeKind::variable: return "variable";
    case EdgeKind::control: return "control";
  }
  return "?";
}

std::optional<EdgeKind> edge_kind_of(std::string_view name) {
  for (const auto k : {EdgeKind::tensor, EdgeKind::variable, EdgeKind::control})
    if (name == edge_kind_name(k)) return k;
  return std::nullopt;
}

std::size_t hash_content(const Content& c) {
  return std::visit(
      [](const auto& v) -> std::size_t {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, Empty>) return 0x11;
        else if constexpr (std::is_same_v<T, Go>) return 0x22;
        else if constexpr (std::is_same_v<T, Dead>) return 0x44;
        else if constexpr (std::is_same_v<T, VarId>) return hash_combine(0x33, v.value);
        else return v.hash();
      },
      c);
}

namespace {

std::string_view name_of(const Node& n) { return n.name(); }
std::string_view name_of(const Edge& e) { return e.name(); }
std::string_view name_of(const Variable& v) { return v.name; }

// The name of entry `id` of a table of nodes, edges or variables, for NameIndex.
template <class Table>
auto names_of(const Table& table) {
  return [&table](std::uint32_t id) -> std::string_view { return name_of(table[id]); };
}

template <class Id>
std::optional<Id> as_id(std::optional<std::uint32_t> i) {
  return i ? std::optional(Id(*i)) : std::nullopt;
}

// `index` of the names of `table`'s entries, made on the first call.
template <class Table>
const NameIndex& indexed(std::once_flag& once, NameIndex& index, const Table& table) {
  std::call_once(once, [&] {
    index.reserve(table.size());
    for (std::size_t i = 0; i < table.size(); ++i) index.insert(name_of(table[i]), static_cast<std::uint32_t>(i), names_of(table));
  });
  return index;
}

}  // namespace

std::optional<NodeId> Program::find_node(std::string_view name) const {
  return as_id<NodeId>(indexed(node_index_once_, node_index_, nodes_).find(name, names_of(nodes_)));
}
std::optional<EdgeId> Program::find_edge(std::string_view name) const {
  return as_id<EdgeId>(indexed(edge_index_once_, edge_index_, edges_).find(name, names_of(edges_)));
}
std::optional<VarId> Program::find_variable(std::string_view name) const {
  return as_id<VarId>(var_index_.find(name, names_of(vars_)));
}

const Content& Program::initial(EdgeId e) const {
  static const Content empty = Empty{};
  const auto it = std::lower_bound(inputs_.begin(), inputs_.end(), e, [](const Input& i, EdgeId x) { return i.edge < x; });
  return it != inputs_.end() && it->edge == e ? it->initial : empty;
}

std::vector<EdgeId> Program::incoming(NodeId n) const {
  std::vector<EdgeId> v(node(n).in.begin(), node(n).in.end());
  v.insert(v.end(), node(n).control_in.begin(), node(n).control_in.end());
  return v;
}

std::vector<EdgeId> Program::outgoing(NodeId n) const {
  std::vector<EdgeId> v(node(n).out.begin(), node(n).out.end());
  v.insert(v.end(), node(n).control_out.begin(), node(n).control_out.end());
  return v;
}

std::optional<FrameId> Program::find_frame(std::string_view name) const {
  for (std::size_t f = 1; f < frames_.size(); ++f)
    if (frames_[f].name == name) return FrameId(f);
  return std::nullopt;
}

std::uint64_t Program::hash() const {
  std::call_once(hash_once_, [this] { hash_ = compute_hash(); });
  return hash_;
}

std::uint64_t Program::compute_hash() const {
  std::uint64_t h = fnv1a(spec_.name);
  auto mix = [&](std::string_view s) { h = fnv1a(s, fnv1a(std::string_view("\x1f"), h)); };
  auto mix_num = [&](std::uint64_t v) { h = fnv1a_bytes(&v, sizeof v, h); };
  for (const auto& v : vars_) {
    mix(v.name);
    mix_num(v.initial.hash());
  }
  for (const auto& f : spec_.functions) {
    mix(f.name);
    mix_num(f.stateful ? 1 : 0);
  }
  for (std::size_t i = 0; i < nodes_.size(); ++i) {
    const auto& n = nodes_[i];
    mix(n.name());
    mix(label(NodeId(i)));
    for (const auto& [k, a] : n.attrs()) {
      mix(k);
      std::visit(
          [&](const auto& x) {
            using T = std::decay_t<decltype(x)>;
            if constexpr (std::is_same_v<T, std::int64_t>) mix_num(static_cast<std::uint64_t>(x));
            else if constexpr (std::is_same_v<T, bool>) mix_num(x ? 1 : 0);
            else if constexpr (std::is_same_v<T, std::string>) mix(x);
            else if constexpr (std::is_same_v<T, Tensor>) mix_num(x.hash());
            else
              for (const auto& t : x) mix_num(t.hash());
          },
          a);
    }
  }
  auto input = inputs_.begin();  // the inputs, in edge order: each input edge's is the next
  for (const auto& e : edges_) {
    mix(e.name());
    mix_num(static_cast<std::uint64_t>(e.kind));
    mix_num(e.src.value);
    mix_num(e.src_port);
    mix_num(e.dst.value);
    mix_num(e.is_output() ? 0 : e.dst_port);
    mix_num(hash_content(e.is_input() ? (input++)->initial : Content{Empty{}}));
    mix(fetch(e));
  }
  return h;
}

ProgramSpec Program::spec() const {
  ProgramSpec out = spec_;
  out.nodes.reserve(nodes_.size());
  for (std::size_t i = 0; i < nodes_.size(); ++i) {
    const auto& n = nodes_[i];
    auto& s = out.nodes.emplace_back();
    s.id = n.decl->id;
    s.op = n.decl->op;
    if (n.op.kind == Op::Kind::var) s.var = variable(n.op.var).name;  // only a Var node names a variable (G-OP)
    s.attrs = n.decl->attrs;
    s.where = node_where_(static_cast<std::uint32_t>(i));
    if (n.decl->device) s.device = *n.decl->device;
  }
  out.edges.reserve(edges_.size());
  for (std::size_t i = 0; i < edges_.size(); ++i) {
    const auto& e = edges_[i];
    const auto spelled = spelled_[i];
    auto& s = out.edges.emplace_back();
    s.id = e.decl->id;
    s.kind = edge_kind_name(e.kind);
    const auto end = [&](NodeId n, std::uint32_t port, std::uint8_t named) {
      return PortRef{node(n).name(), spelled & named ? Port(port) : Port()};
    };
    if (!e.is_input()) s.from = end(e.src, e.src_port, Spelled::from_port);
    if (!e.is_output()) s.to = end(e.dst, e.dst_port, Spelled::to_port);
    if (e.is_input() && (spelled & Spelled::value)) {
      s.value = std::visit(
          [&](const auto& c) -> std::variant<Go, CompactString, Tensor> {
            using T = std::decay_t<decltype(c)>;
            if constexpr (std::is_same_v<T, VarId>) return CompactString(variable(c).name);
            else if constexpr (std::is_same_v<T, Tensor>) return c;
            else {  // an input edge starts with a tensor, a variable or GO (G-INPUT)
              assert((std::is_same_v<T, Go>));
              return Go{};
            }
          },
          initial(EdgeId(i)));
    }
    if (const auto* given = given_fetch(e)) s.fetch = *given;
    s.where = edge_where_(static_cast<std::uint32_t>(i));
  }
  return out;
}

std::string Program::hash_hex() const {
  char buf[24];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(hash()));
  return buf;
}

std::string Program::label(NodeId n) const {
  const auto& op = node(n).op;
  switch (op.kind) {
    case Op::Kind::function: return std::string(op.fn->name);
    case Op::Kind::var: return "Var(" + variable(op.var).name + ")";
    case Op::Kind::read: return "Read";
    case Op::Kind::assign: return op.fn->name == "Snd" ? "Write" : "Assign-" + std::string(op.fn->name);
    default: break;
  }
  for (const auto& c : control_ops())
    if (c.kind == op.kind && c.ref == op.ref) return std::string(c.name);
  return "?";
}

// Builds a Program from a spec, collecting every violated rule (G-*): the
// variables, functions and nodes first, then the edges, piece by piece, then
// what needs the whole graph (arity, frames).
class ProgramBuilder::Impl {
 public:
  Impl(ProgramSpec spec, std::size_t edges, const StopToken* stop)
      : p_(new Program()), poll_(stop, 256), edges_declared_(edges) {
    p_->spec_ = std::move(spec);
    // G-EMPTY: a graph without nodes has no behaviour to trace, explore or
    // compare; refused here, it means the same to every command.
    if (p_->spec_.nodes.empty()) error("G-EMPTY", "/nodes", "", "a graph needs at least one node; this one has none");
    p_->var_index_.reserve(p_->spec_.variables.size());
    p_->vars_.reserve(p_->spec_.variables.size());
    add_variables();
    add_functions();
    add_nodes();
    start_edges();
  }

  std::shared_ptr<const Program> finish() {
    if (finished_) throw std::logic_error("ProgramBuilder: finished already");
    if (edges_seen_ != edges_declared_) throw std::logic_error("ProgramBuilder: the edges given are not the edges declared");
    finished_ = true;  // whatever it throws: the problems found go with it
    // The names are checked: their indexes are given back (Program makes its own on a lookup).
    fetches_ = NameIndex();
    node_names_ = NameIndex();
    edge_names_ = NameIndex();
    p_->edge_where_.shrink();
    p_->fetches_given_.shrink_to_fit();
    resolve_uninterpreted();
    poll_.check();
    for (std::size_t i = 0; i < p_->nodes_.size(); ++i)
      if (op_ok_[i]) check_arity(NodeId(i));
    poll_.check();
    // Frames need well-formed nodes: a node whose op or arity is wrong would
    // only add confusing follow-on errors.
    if (diags_.empty()) build_frames(*p_, diags_);
    if (!diags_.empty()) throw InputError(std::move(diags_));
    return std::shared_ptr<const Program>(p_.release());
  }

 private:
  std::unique_ptr<Program> p_;
  StopPoll poll_;
  std::vector<Diagnostic> diags_;
  std::vector<bool> op_ok_;  // per node: its op parsed
  std::map<std::string, const FunctionSpec*, std::less<>> declared_;  // the graph's uninterpreted functions
  std::map<std::tuple<std::string_view, std::size_t, std::size_t>, const FunctionDef*> signatures_;
  std::vector<const FunctionSpec*> pending_;  // per node: an uninterpreted function awaiting its arity
  std::size_t port_room_ = 0;                 // the ports the edges not yet attached can still fill
  std::size_t edges_declared_;                // the edges that will come
  std::size_t edges_seen_ = 0;                // the edges that have come
  bool finished_ = false;                     // finish() has begun
  NameIndex node_names_, edge_names_;         // the nodes and edges admitted, by id
  NameIndex fetches_;                         // the output edges by fetch name

  // What an op's name is among the control ops and the registry's functions,
  // and the attributes it takes: looked up once per name (a graph has few).
  struct OpName {
    const OpDef* control;
    const FunctionDef* function;
    const std::vector<AttrSpec>* attrs;
  };
  TextMap<OpName> op_names_;
  const OpName& op_name(std::string_view op) {
    auto it = op_names_.find(op);
    if (it == op_names_.end())
      it = op_names_.emplace(std::string(op), OpName{find_control_op(op), Registry::builtin().find(op), attr_specs(op)}).first;
    return it->second;
  }

  void error(std::string rule, std::string_view where, std::string subject, std::string message) {
    diags_.push_back({std::move(rule), std::string(where), std::move(subject), std::move(message)});
  }
  static std::string node_subject(std::string_view id) { return "node '" + std::string(id) + "'"; }
  static std::string edge_subject(std::string_view id) { return "edge '" + std::string(id) + "'"; }

  void add_variables() {
    for (const auto& v : p_->spec_.variables) {
      if (v.name.empty()) {
        error("G-UNIQUE", v.where, "variable", "a variable needs a non-empty name");
        continue;
      }
      if (!p_->var_index_.insert(v.name, static_cast<std::uint32_t>(p_->vars_.size()), names_of(p_->vars_))) {
        error("G-UNIQUE", v.where, "variable '" + v.name + "'", "declared twice");
        continue;
      }
      // V-UNINIT (footnotes 4, 6): an uninitialized variable holds the error "not properly initialized".
      p_->vars_.push_back({v.name,
                           v.init ? *v.init
                                  : Tensor::error(ErrorKind::uninitialized, "variable '" + v.name + "' is not initialized"),
                           v.where});
    }
  }

  // G-FUNCTION: a declared function has a name no other op has.
  void add_functions() {
    for (const auto& f : p_->spec_.functions) {
      const auto subject = "function '" + f.name + "'";
      const bool word = !f.name.empty() && std::isalpha(static_cast<unsigned char>(f.name[0])) &&
                        std::all_of(f.name.begin(), f.name.end(), [](char c) {
                          return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.';
                        });
      if (!word)
        error("G-FUNCTION", f.where, subject, "a function name is a letter followed by letters, digits, '_' and '.'");
      else if (Registry::builtin().find(f.name) || find_control_op(f.name) || f.name == "Var" || f.name == "Read" ||
               f.name == "Write")
        error("G-FUNCTION", f.where, subject, "the name of a built-in operation; an uninterpreted function needs its own");
      else if (!declared_.emplace(f.name, &f).second)
        error("G-FUNCTION", f.where, subject, "declared twice");
    }
  }

  // The uninterpreted function `f` in Tensors^k -> Tensors^l, one definition per signature.
  const FunctionDef* signature(const FunctionSpec& f, std::size_t k, std::size_t l) {
    auto& def = signatures_[{f.name, k, l}];
    if (!def) def = &p_->functions_.emplace_back(uninterpreted_function(f.name, k, l, f.stateful));
    return def;
  }

  // A node applying an uninterpreted function takes the arity of its edges.
  void resolve_uninterpreted() {
    for (std::size_t i = 0; i < pending_.size(); ++i)
      if (pending_[i]) {
        auto& n = p_->nodes_[i];
        n.op.fn = signature(*pending_[i], n.in.size(), n.out.size());
      }
  }

  std::optional<Op> parse_op(const NodeSpec& n) {
    const auto& reg = Registry::builtin();
    const auto subject = [&] { return node_subject(n.id); };
    if (!n.var.empty() && n.op != "Var") error("G-OP", n.where, subject(), "only a Var node names a variable");
    if (n.op == "Var") {
      auto v = p_->find_variable(n.var);
      if (n.var.empty()) error("G-VAR", n.where, subject(), "a Var node needs \"var\": the variable it outputs");
      else if (!v) error("G-VAR", n.where, subject(), "variable '" + n.var + "' is not declared in \"variables\"");
      else return Op{.var = *v, .kind = Op::Kind::var};
      return std::nullopt;
    }
    if (n.op == "Read") return Op{.kind = Op::Kind::read};
    const auto& name = op_name(n.op);
    if (const auto* c = name.control) return Op{.kind = c->kind, .ref = c->ref};
    if (n.op == "Write" || n.op.view().starts_with("Assign-")) {
      const std::string fname = n.op == "Write" ? "Snd" : std::string(n.op.view().substr(7));
      if (auto d = declared_.find(fname); d != declared_.end()) return Op{.fn = signature(*d->second, 2, 1), .kind = Op::Kind::assign};
      const auto* f = reg.find(fname);
      if (!f) error("G-OP", n.where, subject(), "'" + n.op + "': no function '" + fname + "' in the registry");
      else if (f->inputs != 2 || f->outputs != 1 ||
               std::any_of(f->attrs.begin(), f->attrs.end(), [](const AttrSpec& a) { return a.required; }))
        error("G-OP", n.where, subject(),
              "'" + n.op + "': Assign-f needs f: Tensors x Tensors -> Tensors with no required attributes, and " + fname +
                  " is not one");
      else return Op{.fn = f, .kind = Op::Kind::assign};
      return std::nullopt;
    }
    if (const auto* f = name.function) return Op{.fn = f, .kind = Op::Kind::function};
    if (auto d = declared_.find(n.op); d != declared_.end()) {
      pending_.back() = d->second;
      return Op{.kind = Op::Kind::function};
    }
    std::string known, control;
    for (const auto& d : reg.all()) known += std::string(known.empty() ? "" : ", ") + std::string(d.name);
    for (const auto& c : control_ops()) control += ", " + std::string(c.name);
    error("G-OP", n.where, subject(),
          "unknown op '" + n.op + "'; ops are Var, Read, Write, Assign-<f>" + control + ", the functions " + known +
              ", and the uninterpreted functions the graph declares under \"functions\"");
    return std::nullopt;
  }

  void check_attrs(const NodeSpec& n) {
    const auto* declared = op_name(n.op).attrs;  // f's for a function or Assign-f, or the op's
    if (n.attrs->empty() && !declared) return;  // an uninterpreted function's: none
    const auto subject = [&] { return node_subject(n.id); };
    static const std::vector<AttrSpec> none;  // an uninterpreted function takes no attributes
    const auto& specs = declared ? *declared : none;
    for (const auto& [name, value] : *n.attrs) {
      auto it = std::find_if(specs.begin(), specs.end(), [&key = name](const AttrSpec& s) { return s.name == key; });
      if (it == specs.end()) {
        error("G-ATTR", n.where + "/attrs/" + name, subject(), "op '" + n.op + "' takes no attribute '" + name + "'");
      } else if (value.index() != static_cast<std::size_t>(it->type)) {
        error("G-ATTR", n.where + "/attrs/" + name, subject(),
              "attribute '" + name + "' must be a " + std::string(attr_type_name(it->type)));
      }
    }
    for (const auto& s : specs)
      if (s.required && !n.attrs->count(s.name))
        error("G-ATTR", n.where, subject(), "op '" + n.op + "' needs attribute '" + std::string(s.name) + "'");
  }

  // How many elements ahead a loop over a large graph's nodes or edges
  // prefetches the index slots it will probe (NameIndex::prefetch).
  static constexpr std::size_t kAhead = 16;

  // What a loop over n elements needs of element i (its names' hashes),
  // computed by start(i) kAhead elements before i's turn, when start also
  // prefetches the index slots those hashes lead to; next(i) hands it over
  // as i's turn comes, and starts element i + kAhead.
  template <class T, class Start>
  class Ahead {
   public:
    Ahead(std::size_t n, Start start) : n_(n), start_(std::move(start)) {
      for (std::size_t i = 0; i < std::min(kAhead, n); ++i) ring_[i] = start_(i);
    }
    T next(std::size_t i) {
      const T value = ring_[i % kAhead];
      if (i + kAhead < n_) ring_[i % kAhead] = start_(i + kAhead);
      return value;
    }

   private:
    std::size_t n_;
    Start start_;
    std::array<T, kAhead> ring_{};
  };

  void add_nodes() {
    auto& nodes = p_->spec_.nodes;
    node_names_.reserve(nodes.size());
    p_->nodes_.reserve(nodes.size());
    p_->node_decls_.reserve(nodes.size());  // never moves: each Node points at its own
    const auto start = [&](std::size_t i) {  // the id's hash
      const auto h = NameIndex::hash(nodes[i].id);
      node_names_.prefetch(h);
      return h;
    };
    Ahead<std::uint32_t, decltype(start)> ahead(nodes.size(), start);
    for (std::size_t i = 0; i < nodes.size(); ++i) {
      poll_.tick_check();
      const auto hash = ahead.next(i);
      auto& n = nodes[i];
      if (n.id.empty()) {
        error("G-UNIQUE", n.where, "node", "a node needs a non-empty \"id\"");
        continue;
      }
      if (!node_names_.insert(n.id, hash, static_cast<std::uint32_t>(p_->nodes_.size()), names_of(p_->nodes_))) {
        error("G-UNIQUE", n.where, node_subject(n.id), "node id used twice");
        continue;
      }
      if (const auto why = device_problem(n.device); !why.empty())
        error("G-DEVICE", n.where, node_subject(n.id), "device '" + n.device + "': " + why);
      pending_.push_back(nullptr);
      auto op = parse_op(n);
      if (op) check_attrs(n);
      op_ok_.push_back(op.has_value());
      // The node is in the Program from here on: it takes n's id, op,
      // attributes, device and path, and the Program lets go of n. A node
      // whose op is bad keeps a placeholder label; its arity is not checked.
      assert(p_->node_decls_.size() < p_->node_decls_.capacity());
      Boxed<CompactString> device;
      if (!n.device.empty()) device = std::move(n.device);
      const auto& decl =
          p_->node_decls_.emplace_back(NodeDecl{std::move(n.id), std::move(n.op), std::move(n.attrs), std::move(device)});
      p_->node_where_.add(static_cast<std::uint32_t>(p_->nodes_.size()), std::move(n.where));
      p_->nodes_.push_back({.decl = &decl, .op = op.value_or(Op{}), .in = {}, .out = {}, .control_in = {}, .control_out = {}});
    }
    // What the Program needs of the declarations is in its Nodes and decls:
    // a million-node graph's are given back here, before the builder takes
    // the edges into memory taken again.
    std::vector<NodeSpec>().swap(nodes);
    p_->node_where_.shrink();
  }

  // Resolves one end of an edge (`hash`: its node name's); returns false
  // (after reporting) when it is unusable.
  bool resolve_end(const EdgeSpec& e, const PortRef& ref, std::uint32_t hash, EdgeKind kind, const char* end,
                   NodeId& node, std::uint32_t& port) {
    auto n = as_id<NodeId>(node_names_.find(ref.node, hash, names_of(p_->nodes_)));
    if (!n) {
      error("G-EDGE-NODE", e.where + "/" + end, edge_subject(e.id), "no node '" + ref.node + "'");
      return false;
    }
    node = *n;
    if (kind == EdgeKind::control) {
      if (ref.port) {
        error("G-PORT", e.where + "/" + end, edge_subject(e.id), "control edges have no port");
        return false;
      }
      return true;
    }
    // A node may have any number of ports, each with an edge of its own: so a
    // port is in range while the graph has edges for the ports up to it, beside
    // those the other nodes' ports already take (port_room_).
    const auto v = ref.port.value_or(0);
    const auto& ports = std::string_view(end) == "from" ? p_->nodes_[node.index()].out : p_->nodes_[node.index()].in;
    if (v >= ports.size() && v + std::size_t{1} - ports.size() > port_room_) {
      error("G-PORT", e.where + "/" + end, edge_subject(e.id),
            "port " + std::to_string(v) + " out of range: the graph's " + std::to_string(edges_declared_) +
                " edges cannot give every port up to it an edge");
      return false;
    }
    port = v;
    return true;
  }

  // Puts edge e on `port`; false when the port has an edge already.
  bool attach(EdgeList& ports, std::uint32_t port, EdgeId e) {
    if (ports.size() <= port) {
      port_room_ -= std::min<std::size_t>(port_room_, port + std::size_t{1} - ports.size());
      ports.resize(port + 1);
    }
    if (ports[port].valid()) return false;
    ports[port] = e;
    return true;
  }

  // The initial contents of the edge add_edges pushes next: it calls this after
  // the last check that skips an edge, so inputs_ stays in edge order.
  void add_input(Content initial) { p_->inputs_.push_back({EdgeId(p_->edges_.size()), std::move(initial)}); }

  // The contents of input edge `edge`, the next edge (`id`), in the initial
  // state, from e's value (e's names and path are the Program's by now).
  void set_initial(const EdgeSpec& e, const Edge& edge, EdgeId id) {
    const auto subject = [&] { return edge_subject(edge.name()); };
    const auto where = [&] { return p_->edge_where_(id.value); };
    if (!e.value) {
      if (edge.kind == EdgeKind::control) add_input(Go{});
      else
        error("G-INPUT", where(), subject(),
              "an input edge needs \"value\": the initial state has no EMPTY input edge");
      return;
    }
    switch (edge.kind) {
      case EdgeKind::tensor:
        if (const auto* t = e.value_as<Tensor>()) add_input(*t);
        else error("G-INPUT", where() + "/value", subject(), "a tensor input edge carries a tensor");
        return;
      case EdgeKind::variable:
        if (const auto* name = e.value_as<CompactString>()) {
          if (auto v = p_->find_variable(*name)) add_input(*v);
          else error("G-INPUT", where() + "/value", subject(), "variable '" + *name + "' is not declared in \"variables\"");
        } else {
          error("G-INPUT", where() + "/value", subject(), "a variable input edge carries a variable name");
        }
        return;
      case EdgeKind::control:
        if (e.value_as<Go>() != nullptr) add_input(Go{});
        else error("G-INPUT", where() + "/value", subject(), "a control input edge carries GO");
        return;
    }
  }

  // Room for the edges declared: the Program's arrays of them never move,
  // as each Edge points at its declaration.
  void start_edges() {
    const auto n = edges_declared_;
    edge_names_.reserve(n);
    p_->edges_.reserve(n);
    p_->edge_decls_.reserve(n);
    p_->spelled_.reserve(n);
    port_room_ = 2 * n;  // an edge fills one port at each end
    // Sized for an output edge a node: 16 MiB for a million nodes, where
    // sizing it for their three million edges would take 32. A graph with more
    // output edges (dangling control edges count) grows it as they come.
    fetches_.reserve(p_->nodes_.size());
  }

 public:
  // The next edges: each admitted takes a place in the Program.
  void add_edges(std::span<EdgeSpec> edges) {
    if (finished_) throw std::logic_error("ProgramBuilder: finished already");
    if (edges.size() > edges_declared_ - edges_seen_) throw std::logic_error("ProgramBuilder: more edges than declared");
    edges_seen_ += edges.size();
    const auto fetch_of = [&](std::uint32_t id) -> std::string_view { return p_->fetch(p_->edges_[id]); };
    // The hashes of an edge's names: its id, its fetch name, its ends' nodes.
    struct Hashes {
      std::uint32_t id = 0, fetch = 0, from = 0, to = 0;
    };
    const auto start = [&](std::size_t i) {
      const auto& e = edges[i];
      Hashes h;
      h.id = NameIndex::hash(e.id);
      h.fetch = e.fetch ? NameIndex::hash(*e.fetch) : h.id;
      edge_names_.prefetch(h.id);
      fetches_.prefetch(h.fetch);
      if (e.from) node_names_.prefetch(h.from = NameIndex::hash(e.from->node));
      if (e.to) node_names_.prefetch(h.to = NameIndex::hash(e.to->node));
      return h;
    };
    Ahead<Hashes, decltype(start)> ahead(edges.size(), start);
    for (std::size_t i = 0; i < edges.size(); ++i) {
      poll_.tick_check();
      const auto hash = ahead.next(i);
      auto& e = edges[i];
      Edge edge;
      // Its id: e's, until the Program keeps it (edge.decl).
      const auto subject = [&] { return edge_subject(edge.decl ? edge.decl->id : e.id); };
      if (e.id.empty()) {
        error("G-UNIQUE", e.where, "edge", "an edge needs a non-empty \"id\"");
        continue;
      }
      if (edge_names_.find(e.id, hash.id, names_of(p_->edges_))) {
        error("G-UNIQUE", e.where, subject(), "edge id used twice");
        continue;
      }
      if (const auto kind = edge_kind_of(e.kind)) edge.kind = *kind;
      else {
        error("G-EDGE-KIND", e.where + "/kind", subject(),
              "kind '" + e.kind + "' is not one of tensor, variable, control");
        continue;
      }
      if (!e.from && !e.to) {
        error("G-EDGE-ENDS", e.where, subject(), "an edge needs \"from\" or \"to\" (or both)");
        continue;
      }
      if (e.from && !resolve_end(e, *e.from, hash.from, edge.kind, "from", edge.src, edge.src_port)) continue;
      if (e.to && !resolve_end(e, *e.to, hash.to, edge.kind, "to", edge.dst, edge.dst_port)) continue;
      // The edge is in the Program from here on: it takes e's names and
      // path; the rest of e goes with its piece, once the Program has its Edge.
      const EdgeId id(p_->edges_.size());
      const auto where = [&] { return p_->edge_where_(id.value); };
      assert(p_->edge_decls_.size() < p_->edge_decls_.capacity());
      edge.decl = &p_->edge_decls_.emplace_back(EdgeDecl{std::move(e.id)});
      p_->edge_where_.add(id.value, std::move(e.where));
      p_->spelled_.push_back(static_cast<std::uint8_t>((e.from && e.from->port ? Program::Spelled::from_port : 0) |
                                                       (e.to && e.to->port ? Program::Spelled::to_port : 0) |
                                                       (e.value ? Program::Spelled::value : 0)));
      if (edge.is_input()) set_initial(e, edge, id);
      else if (e.value)
        error("G-INPUT", where() + "/value", subject(), "only an input edge (no \"from\") carries an initial value");
      if (edge.is_output()) {
        edge.fetch_given = Edge::kFetchIsId;
        if (e.fetch) {
          edge.fetch_given = static_cast<std::uint32_t>(p_->fetches_given_.size());
          p_->fetches_given_.push_back(std::move(*e.fetch));
        }
        if (const auto fetch = p_->fetch(edge);
            !fetch.empty() && !fetches_.insert(fetch, hash.fetch, static_cast<std::uint32_t>(p_->edges_.size()), fetch_of))
          error("G-FETCH", where() + "/fetch", subject(), "fetch name '" + std::string(fetch) + "' used twice");
      } else if (e.fetch) {
        error("G-FETCH", where() + "/fetch", subject(), "only an output edge (no \"to\") has a fetch name");
      }
      if (edge.src.valid()) {
        auto& src = p_->nodes_[edge.src.index()];
        if (edge.kind == EdgeKind::control) src.control_out.emplace_back(id);
        else if (!attach(src.out, edge.src_port, id))
          error("G-FANOUT", where() + "/from", subject(),
                "output port " + src.name() + ":" + std::to_string(edge.src_port) + " already has edge '" +
                    p_->edges_[src.out[edge.src_port].index()].name() +
                    "'; one result feeds one edge, so add a Copy node to share it");
      }
      if (edge.dst.valid()) {
        auto& dst = p_->nodes_[edge.dst.index()];
        if (edge.kind == EdgeKind::control) dst.control_in.emplace_back(id);
        else if (!attach(dst.in, edge.dst_port, id))
          error("G-PORT", where() + "/to", subject(),
                "input port " + dst.name() + ":" + std::to_string(edge.dst_port) + " already has edge '" +
                    p_->edges_[dst.in[edge.dst_port].index()].name() + "'");
      }
      edge_names_.insert(edge.name(), hash.id, id.value, names_of(p_->edges_));
      assert(p_->inputs_.empty() || p_->inputs_.back().edge.index() <= p_->edges_.size());
      p_->edges_.push_back(std::move(edge));
    }
  }

 private:
  // Checks that ports 0..want.size()-1 hold exactly edges of the wanted kinds,
  // and no others; `why` (called only on a problem) says what the op takes.
  template <class Why>
  void check_ports(const Node& n, const EdgeList& ports, const std::vector<EdgeKind>& want, const char* dir,
                   Why&& why) {
    auto fits = [&](std::size_t p) {
      const bool has = p < ports.size() && ports[p].valid();
      return p >= want.size() ? !has : has && p_->edges_[ports[p].index()].kind == want[p];
    };
    bool ok = true;
    for (std::size_t p = 0; ok && p < std::max(ports.size(), want.size()); ++p) ok = fits(p);
    if (ok) return;
    const auto subject = node_subject(n.name());
    for (std::size_t p = 0; p < std::max(ports.size(), want.size()); ++p) {
      if (fits(p)) continue;
      const bool has = p < ports.size() && ports[p].valid();
      const std::string port = std::string(dir) + " port " + std::to_string(p);
      if (p >= want.size()) {
        error("G-ARITY", p_->where(n), subject,
              why() + "; " + port + " has edge '" + p_->edges_[ports[p].index()].name() + "' that it cannot have");
      } else if (!has) {
        error("G-ARITY", p_->where(n), subject, why() + "; " + port + " has no " + std::string(edge_kind_name(want[p])) + " edge");
      } else {
        const auto& e = p_->edges_[ports[p].index()];
        error("G-EDGE-KIND", p_->where(e), edge_subject(e.name()),
              port + " of " + subject + " takes a " + std::string(edge_kind_name(want[p])) + " edge, not a " +
                  std::string(edge_kind_name(e.kind)) + " edge");
      }
    }
  }

  void check_arity(NodeId id) {
    const auto& n = p_->nodes_[id.index()];
    const auto label = [&] { return p_->label(id); };
    auto says = [](const char* text) { return [text] { return std::string(text); }; };
    switch (n.op.kind) {
      case Op::Kind::function: {
        const auto k = n.op.fn->inputs, l = n.op.fn->outputs;
        const auto why = [&] {
          return label() + " is a function in Tensors^" + std::to_string(k) + " -> Tensors^" + std::to_string(l);
        };
        // S-DEREF: one input may be a variable edge, which f dereferences when it fires.
        const auto variable = [&](EdgeId e) { return e.valid() && p_->edges_[e.index()].kind == EdgeKind::variable; };
        auto in = std::vector(k, EdgeKind::tensor);
        const auto deref = std::find_if(n.in.begin(), n.in.end(), variable);
        if (deref != n.in.end() && deref - n.in.begin() < static_cast<std::ptrdiff_t>(k)) in[deref - n.in.begin()] = EdgeKind::variable;
        const bool several = std::count_if(n.in.begin(), n.in.end(), variable) > 1;
        check_ports(n, n.in, in, "input", [&] {
          return why() + (several ? ", and dereferences at most one variable edge (S-DEREF)" : "");
        });
        check_ports(n, n.out, std::vector(l, EdgeKind::tensor), "output", why);
        break;
      }
      case Op::Kind::var:
        check_ports(n, n.in, {}, "input", says("Var(x) has no tensor or variable inputs"));
        check_ports(n, n.out, {EdgeKind::variable}, "output", says("Var(x) has one outgoing variable edge"));
        break;
      case Op::Kind::read:
        check_ports(n, n.in, {EdgeKind::variable}, "input", says("Read has one incoming variable edge"));
        check_ports(n, n.out, {EdgeKind::tensor}, "output", says("Read has one outgoing tensor edge"));
        break;
      case Op::Kind::assign:
        check_ports(n, n.in, {EdgeKind::variable, EdgeKind::tensor}, "input",
                    [&] { return label() + " has an incoming variable edge (port 0) and tensor edge (port 1)"; });
        check_ports(n, n.out, {}, "output", [&] { return label() + " has no outgoing tensor or variable edges"; });
        break;
      case Op::Kind::send:
        check_ports(n, n.in, {n.in.size() == 1 && p_->edges_[n.in[0].index()].kind == EdgeKind::variable ? EdgeKind::variable : EdgeKind::tensor},
                    "input", says("Send has one incoming tensor or variable edge"));
        check_ports(n, n.out, {EdgeKind::tensor}, "output", says("Send has one outgoing tensor edge, the rendezvous to its Recv"));
        check_rendezvous(n, n.out, OpKind::recv, "its outgoing edge goes to a Recv (the rendezvous)");
        break;
      case Op::Kind::recv:
        check_ports(n, n.in, {EdgeKind::tensor}, "input", says("Recv has one incoming tensor edge, the rendezvous from its Send"));
        check_ports(n, n.out, std::vector(n.out.size(), EdgeKind::tensor), "output",
                    says("Recv puts its value on outgoing tensor edges, ports 0, 1, ..."));
        check_rendezvous(n, n.in, OpKind::send, "its incoming edge comes from a Send (the rendezvous)");
        break;
      default: check_control_arity(n, label()); break;
    }
    const bool any_in = std::any_of(n.in.begin(), n.in.end(), [](EdgeId e) { return e.valid(); }) || !n.control_in.empty();
    if (!any_in)
      error("G-TRIGGER", p_->where(n), node_subject(n.name()),
            "has no incoming edge; every node needs one (a control edge will do) to trigger it");
  }

  // G-RENDEZVOUS: a Send's one output goes to a Recv, a Recv's one input comes from a Send.
  void check_rendezvous(const Node& n, const EdgeList& edges, OpKind other, const char* why) {
    if (edges.size() != 1 || !edges[0].valid()) return;  // check_ports has said so
    const auto& e = p_->edges_[edges[0].index()];
    const auto end = other == OpKind::recv ? e.dst : e.src;
    if (!end.valid() || p_->nodes_[end.index()].op.kind != other || !op_ok_[end.index()])
      error("G-RENDEZVOUS", p_->where(e), node_subject(n.name()), why);
  }

  // Control-flow ops carry a tensor, or a variable handle in their Ref form.
  void check_control_arity(const Node& n, const std::string& label) {
    const auto data = n.op.ref ? EdgeKind::variable : EdgeKind::tensor;
    const auto kind = std::string(edge_kind_name(data));
    switch (n.op.kind) {
      case Op::Kind::switch_:
        check_ports(n, n.in, {data, EdgeKind::tensor}, "input",
                    [&] { return label + " takes its data (a " + kind + " edge) on port 0 and a bool predicate on port 1"; });
        check_ports(n, n.out, {data, data}, "output",
                    [&] { return label + " has two outgoing " + kind + " edges: port 0 (false) and port 1 (true)"; });
        break;
      case Op::Kind::merge:
        check_ports(n, n.in, std::vector(std::max<std::size_t>(1, n.in.size()), data), "input",
                    [&] { return label + " takes one or more " + kind + " edges on ports 0, 1, ..."; });
        check_ports(n, n.out, n.out.size() >= 2 ? std::vector{data, EdgeKind::tensor} : std::vector{data}, "output", [&] {
          return label + " has its value on port 0 (a " + kind + " edge) and, optionally, its index on port 1";
        });
        break;
      case Op::Kind::ref_identity:
      case Op::Kind::enter:
      case Op::Kind::exit:
      case Op::Kind::next_iteration:
      case Op::Kind::call:
      case Op::Kind::return_:
        check_ports(n, n.in, {data}, "input", [&] { return label + " has one incoming " + kind + " edge"; });
        check_ports(n, n.out, {data}, "output", [&] { return label + " has one outgoing " + kind + " edge"; });
        break;
      default: break;
    }
  }
};

ProgramBuilder::ProgramBuilder(ProgramSpec spec, std::size_t edges, const StopToken* stop) {
  if (!spec.edges.empty() || !spec.library.empty())
    throw std::logic_error("ProgramBuilder: a spec's edges come after it, and its library is made static first");
  impl_ = std::make_unique<Impl>(std::move(spec), edges, stop);
}
ProgramBuilder::~ProgramBuilder() = default;
void ProgramBuilder::add_edges(std::span<EdgeSpec> edges) { impl_->add_edges(edges); }
std::shared_ptr<const Program> ProgramBuilder::finish() { return impl_->finish(); }

std::shared_ptr<const Program> Program::build(ProgramSpec spec, const StopToken* stop) {
  auto whole = make_static(std::move(spec));  // the semantics runs functions statically (C-CALL)
  auto edges = std::move(whole.edges);
  whole.edges.clear();
  ProgramBuilder builder(std::move(whole), edges.size(), stop);
  builder.add_edges(edges);
  // What the Program needs of the declarations is in its Edges, decls,
  // spelling bytes and inputs: a million-edge graph's declarations are given
  // back here, before the rest of the Program (and a compiled graph after
  // it) is built.
  std::vector<EdgeSpec>().swap(edges);
  return builder.finish();
}

}  // namespace tfsem
