// TF programs (section 3.1.1): a DAG G plus a labelling L from nodes to TF
// operations, with ordered ports, input edges (no source) and output edges (no
// destination). With control flow (section 4), G may have cycles, each through
// a NextIteration into a Merge, and every node belongs to a static frame: the
// root, or the loop frame its Enter nodes name. A Program is built only from a
// ProgramSpec that passes every validation rule (program.cpp, frames.cpp), and
// is immutable afterwards.
#pragma once

#include "support/boxed.hpp"
#include "support/compact_string.hpp"
#include "support/copy_on_write.hpp"
#include "support/stop_token.hpp"
#include "semantics/content.hpp"
#include "semantics/declared_where.hpp"
#include "semantics/edge_list.hpp"
#include "semantics/ids.hpp"
#include "semantics/name_index.hpp"
#include "semantics/ops.hpp"

#include <cassert>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <variant>
#include <vector>

namespace tfsem {

// The labelling L(n): one of f, Var(x), Read, Assign-f, or a control-flow
// operation (ops.hpp), on tensors or, in its Ref form, on a variable edge.
struct Op {
  using Kind = OpKind;
  const FunctionDef* fn = nullptr;  // for function and assign
  VarId var{};                      // for var
  Kind kind = Kind::function;
  bool ref = false;                 // a control-flow op on a variable edge (RefSwitch, ...)
};

// What a node's declaration says that its Node does not: its id, its op as
// written, its attributes and its device. The Program keeps these, 48 bytes
// a node, and lets go of the rest of the declaration: the variable a Var
// names is its Op's, and where it was declared is Program::where's.
struct NodeDecl {
  CompactString id, op;
  CopyOnWrite<Attrs> attrs;
  Boxed<CompactString> device;  // absent: none
};
static_assert(sizeof(NodeDecl) == 48);

// What an edge's declaration says that its Edge does not: its id. The
// Program keeps these, 16 bytes an edge, and the fetch names output edges
// were given in a table of their own (Edge::fetch_given), and lets go of the
// rest of the declaration (ends, kind, initial contents), which its Edges
// and inputs() hold, with a byte an edge on how the declaration was written
// (Program::spec() gives it back).
struct EdgeDecl {
  CompactString id;
};
static_assert(sizeof(EdgeDecl) == 16);

// A node and an edge point at what the Program keeps of their declaration
// for what the rules never read while firing (names, attributes), so that a
// graph of millions of edges holds each name once: a Node is 96 bytes, an
// Edge 32, two to a cache line.
struct Node {
  const NodeDecl* decl = nullptr;  // what the Program keeps of its declaration, never null
  Op op;
  EdgeList in;                   // tensor and variable inputs, by port
  EdgeList out;                  // tensor and variable outputs, by port
  EdgeList control_in;           // incoming control edges
  EdgeList control_out;          // outgoing control edges
  FrameId frame{std::uint32_t{0}};  // the frame of the contexts it fires in
  [[nodiscard]] const CompactString& name() const;
  [[nodiscard]] const Attrs& attrs() const;
};

// An input edge's initial contents are the Program's inputs(), not a field
// every edge pays for.
struct Edge {
  const EdgeDecl* decl = nullptr;  // what the Program keeps of its declaration, never null
  NodeId src{};  // invalid for an input edge
  NodeId dst{};  // invalid for an output edge
  std::uint32_t src_port = 0;
  union {
    std::uint32_t dst_port = 0;  // the destination's input port
    // An output edge's (it has no destination): the fetch name it was
    // given, its index in the Program's table of them, or kFetchIsId.
    std::uint32_t fetch_given;
  };
  FrameId frame{std::uint32_t{0}};  // the frame of the contexts its tokens live in (C-SLOT)
  EdgeKind kind = EdgeKind::tensor;
  bool back = false;       // leaves a NextIteration: the edge that closes a loop
  bool call = false;       // leaves a Call's data output or enters a Return's data input:
                           // it crosses into or out of a function frame (C-CALL, C-RETURN)
  bool invariant = false;  // leaves a constant Enter: one token for every iteration
  [[nodiscard]] bool is_input() const { return !src.valid(); }
  [[nodiscard]] bool is_output() const { return !dst.valid(); }
  [[nodiscard]] const CompactString& name() const;
  static constexpr std::uint32_t kFetchIsId = ~std::uint32_t{0};  // fetch_given: none given, its id
};
static_assert(sizeof(Edge) == 32 && sizeof(Node) == 96);

// A static frame: the root, a while loop's frame, named by its Enter nodes,
// or a function's frame, named by its Call nodes (thesis section 5). A loop
// frame has one parent frame; a function is called from any frame, itself
// included, so its contexts' parents are those of its Calls.
struct Frame {
  enum class Kind : std::uint8_t { root, loop, function };
  Kind kind = Kind::root;
  std::string name;       // the Enters' "frame" attribute, the Calls' "function"; "" for the root
  FrameId parent{};       // a loop frame's parent; invalid for the root and functions
  std::uint32_t depth = 0;  // a loop frame's nesting in loops (0 for the others)
  std::uint32_t parallel_iterations = 1;  // the Enters' bound on iterations in flight (C-BOUND)
  std::vector<NodeId> nodes;            // nodes whose transitions are in this frame
  std::vector<NodeId> enters, exits;    // the Enters into this frame and the Exits out of it
  std::vector<NodeId> next_iterations;
  std::vector<NodeId> calls;            // the Calls into this function frame, from any frame
  std::vector<EdgeId> slots;            // edges whose tokens live in this frame
  std::vector<NodeId> records;          // nodes whose firings are recorded here (C-ONCE): its
                                        // nodes less its Exits, plus its child frames' Exits
  std::vector<FrameId> children;        // the loop frames whose parent this is
  std::vector<FrameId> outer;           // every frame a context of this one may be nested in
};

// An input edge with its contents in the initial state (S-INIT); the Program
// keeps these apart from its edges, few of which are inputs.
struct Input {
  EdgeId edge;
  Content initial;
};

struct Variable {
  std::string name;
  Tensor initial;  // VarValue(x) in the initial state; may be the error "uninitialized"
  std::string where;
};

// ---- The unvalidated description a Program is built from. ----
// Its strings are CompactStrings: a large graph's description holds millions.

// A port number, or none, in 4 bytes where std::optional takes 8: an edge's
// declaration holds two, and a large graph millions of declarations. A port
// is at most six digits (JSON, GraphDef), so the largest number is free to
// mean none.
class Port {
 public:
  constexpr Port() = default;
  constexpr Port(std::nullopt_t) {}                // NOLINT(google-explicit-constructor): as std::optional
  constexpr Port(std::uint32_t p) : value_(p) {}  // NOLINT(google-explicit-constructor): as std::optional
  [[nodiscard]] constexpr bool has_value() const { return value_ != kNone; }
  constexpr explicit operator bool() const { return has_value(); }
  [[nodiscard]] constexpr std::uint32_t operator*() const { return value_; }
  [[nodiscard]] constexpr std::uint32_t value_or(std::uint32_t otherwise) const { return has_value() ? value_ : otherwise; }
  friend constexpr bool operator==(Port a, Port b) = default;
  friend constexpr bool operator==(Port a, std::uint32_t b) { return a.value_ == b; }

 private:
  static constexpr std::uint32_t kNone = ~std::uint32_t{0};
  std::uint32_t value_ = kNone;
};
struct PortRef {
  CompactString node;
  Port port;  // none: port 0, or no port for a control edge
};
// An edge's end or none, in a PortRef's 20 bytes where std::optional takes
// 24: none is a port number no graph reaches (a file's ports have at most six
// digits, and a generated port counts edges) and is not Port's none.
class OptionalPortRef {
 public:
  OptionalPortRef() = default;
  OptionalPortRef(std::nullopt_t) {}  // NOLINT(google-explicit-constructor): as std::optional
  OptionalPortRef(PortRef r) : ref_(std::move(r)) {  // NOLINT(google-explicit-constructor): as std::optional
    assert(has_value());
  }
  [[nodiscard]] bool has_value() const { return !(ref_.port == kNoEnd); }
  explicit operator bool() const { return has_value(); }
  [[nodiscard]] const PortRef& operator*() const { return (assert(has_value()), ref_); }
  [[nodiscard]] PortRef& operator*() { return (assert(has_value()), ref_); }
  [[nodiscard]] const PortRef* operator->() const { return &**this; }
  [[nodiscard]] PortRef* operator->() { return &**this; }
  void reset() { ref_ = {{}, kNoEnd}; }

 private:
  static constexpr Port kNoEnd{~std::uint32_t{0} - 1};
  PortRef ref_{{}, kNoEnd};
};
// 88 bytes: a graph of millions of nodes holds one per node.
struct NodeSpec {
  CompactString id, op, var;  // var: for op Var
  CopyOnWrite<Attrs> attrs;   // one value for the nodes a reader read one text for
  CompactString where;
  CompactString device{};  // where it runs (G-DEVICE); "" for none. The semantics does not read it.
};
static_assert(sizeof(NodeSpec) == 88);
// A graph of millions of edges holds one per edge, 104 bytes: what most
// edges do not declare (initial contents, a fetch name) is Boxed.
struct EdgeSpec {
  CompactString id, kind;
  OptionalPortRef from, to;
  // An input edge's contents: GO, a variable name or a tensor; none declared: absent.
  Boxed<std::variant<Go, CompactString, Tensor>> value;
  Boxed<CompactString> fetch;  // absent: the edge id; "": an output that is not fetched
  CompactString where;
  // Its fetch name, were it an output edge ("": not fetched).
  [[nodiscard]] std::string_view fetch_name() const { return fetch ? fetch->view() : id.view(); }
  // Whether it is an output edge given the fetch name it takes by default, its id.
  [[nodiscard]] bool default_fetch_given() const { return !to && fetch && *fetch == id; }
  // Drops such a name (the readers' form, which the writer keeps): a million
  // outputs that name their fetch then hold no box.
  void drop_default_fetch() {
    if (default_fetch_given()) fetch.reset();
  }
  // Its declared contents if they are a T, else null.
  template <class T>
  [[nodiscard]] const T* value_as() const {
    return value ? std::get_if<T>(&*value) : nullptr;
  }
};
static_assert(sizeof(EdgeSpec) == 104);
// An edge of a library function's body: also the argument an input edge
// carries, or the result an output edge gives ("": none). Kept out of
// EdgeSpec, which a graph of millions of edges holds one of per edge.
struct BodyEdgeSpec : EdgeSpec {
  std::string arg{}, result{};
};
// A graph's edges as a body's, carrying no argument and giving no result yet.
std::vector<BodyEdgeSpec> body_edges(std::vector<EdgeSpec> edges);
// An uninterpreted function the graph applies (an op tfsem does not model):
// each node that applies it fixes its arity by its edges.
struct FunctionSpec {
  std::string name;
  bool stateful = false;
  std::string description, where;
};
struct VariableSpec {
  std::string name;
  std::optional<Tensor> init;  // absent: uninitialized (footnote 6)
  std::string where;
};
// A function of the library (thesis section 5): a subgraph with named
// arguments and results. A node whose op names a function is a call site:
// its input ports are the arguments, its output ports the results.
struct LibraryFunction {
  std::string name;
  std::vector<std::string> args, results;
  std::vector<NodeSpec> nodes;
  std::vector<BodyEdgeSpec> edges;
  std::string where;
};
struct ProgramSpec {
  std::string name, description, where;
  std::vector<VariableSpec> variables;
  std::vector<NodeSpec> nodes;
  std::vector<EdgeSpec> edges;
  std::vector<FunctionSpec> functions;
  std::vector<LibraryFunction> library;  // turned into Call and Return by functions.hpp before validation
};

inline const CompactString& Node::name() const { return decl->id; }
inline const Attrs& Node::attrs() const { return *decl->attrs; }
inline const CompactString& Edge::name() const { return decl->id; }

class Program {
 public:
  // Validates spec against every rule of specs/semantics.md (G-*); throws
  // InputError listing every problem found, and Stopped when `stop` (may be
  // null) stops the work.
  // A spec with a library has it made static first (functions.hpp).
  static std::shared_ptr<const Program> build(ProgramSpec spec, const StopToken* stop = nullptr);

  [[nodiscard]] const std::string& name() const { return spec_.name; }
  // The spec it was built from, with its library made static (functions.hpp),
  // made again from what the Program keeps: a copy as large as the graph.
  [[nodiscard]] ProgramSpec spec() const;
  [[nodiscard]] const std::vector<Node>& nodes() const { return nodes_; }
  [[nodiscard]] const std::vector<Edge>& edges() const { return edges_; }
  [[nodiscard]] const std::vector<Variable>& variables() const { return vars_; }
  // The variables as declared (spec().variables, without making the rest of the spec again).
  [[nodiscard]] const std::vector<VariableSpec>& declared_variables() const { return spec_.variables; }
  // The input edges, by edge id, with their contents in the initial state.
  [[nodiscard]] const std::vector<Input>& inputs() const { return inputs_; }
  // An input edge's contents in the initial state; EMPTY for any other edge.
  [[nodiscard]] const Content& initial(EdgeId e) const;
  [[nodiscard]] const Node& node(NodeId n) const { return nodes_[n.index()]; }
  [[nodiscard]] const Edge& edge(EdgeId e) const { return edges_[e.index()]; }
  [[nodiscard]] const Variable& variable(VarId v) const { return vars_[v.index()]; }
  // An output edge's fetch name: the one it was given, else its id ("": not
  // fetched); "" for any other edge.
  [[nodiscard]] std::string_view fetch(const Edge& e) const {
    if (!e.is_output()) return {};
    const auto* given = given_fetch(e);
    return given ? given->view() : e.name().view();
  }
  // Where a node or an edge of this Program was declared: a JSON path, or
  // what an importer wrote (DeclaredWhere).
  [[nodiscard]] std::string where(const Node& n) const { return node_where_(index_of(nodes_, n)); }
  [[nodiscard]] std::string where(const Edge& e) const { return edge_where_(index_of(edges_, e)); }
  [[nodiscard]] std::optional<NodeId> find_node(std::string_view name) const;
  [[nodiscard]] std::optional<EdgeId> find_edge(std::string_view name) const;
  [[nodiscard]] std::optional<VarId> find_variable(std::string_view name) const;
  // Every incoming edge of n: inputs by port, then control edges.
  [[nodiscard]] std::vector<EdgeId> incoming(NodeId n) const;
  [[nodiscard]] std::vector<EdgeId> outgoing(NodeId n) const;
  // The variable a Read, Assign-f, Send or dereferencing function (S-DEREF) accesses: the handle on its variable
  // edge, which comes from a Var(x) node or an input edge, possibly through
  // Ref control-flow ops, and is static (G-REF).
  [[nodiscard]] std::optional<VarId> variable_of(NodeId n) const {
    const auto v = access_var_[n.index()];
    return v.valid() ? std::optional(v) : std::nullopt;
  }
  // Nodes in a topological order of G without its back edges.
  [[nodiscard]] const std::vector<NodeId>& topological_order() const { return topo_; }
  // The static frames; frames()[0] is the root frame.
  [[nodiscard]] const std::vector<Frame>& frames() const { return frames_; }
  [[nodiscard]] const Frame& frame(FrameId f) const { return frames_[f.index()]; }
  [[nodiscard]] std::optional<FrameId> find_frame(std::string_view name) const;
  // Whether any node is a control-flow operation (the section 3 core has none).
  [[nodiscard]] bool has_control_flow() const { return control_flow_; }
  // A stable 64-bit hash of the whole program, initial contents included:
  // one pass over every name, made on the first call (building a Program and
  // compiling it for the executor need none; the commands print it).
  [[nodiscard]] std::uint64_t hash() const;
  [[nodiscard]] std::string hash_hex() const;
  // Text of L(n): "Add", "Var(x)", "Read", "Assign-Add".
  [[nodiscard]] std::string label(NodeId n) const;

 private:
  friend class ProgramBuilder;
  friend class FrameBuilder;
  Program() = default;
  ProgramSpec spec_;  // without its nodes and edges, which the builder lets go of once read
  std::vector<Node> nodes_;
  std::vector<Edge> edges_;
  std::vector<NodeDecl> node_decls_;  // by node
  std::vector<EdgeDecl> edge_decls_;  // by edge
  std::vector<CompactString> fetches_given_;  // the fetch names output edges were given (Edge::fetch_given)
  DeclaredWhere node_where_{"/nodes/"}, edge_where_{"/edges/"};
  // By edge, how its declaration wrote what its Edge holds in another form,
  // so that spec() gives the declaration back as it was written: whether
  // each end named its port (port 0 may go unnamed), and whether it declared
  // its contents (a control input edge's GO may go unsaid).
  struct Spelled {
    static constexpr std::uint8_t from_port = 1, to_port = 2, value = 4;
  };
  std::vector<std::uint8_t> spelled_;
  std::vector<Variable> vars_;
  std::vector<Input> inputs_;
  std::vector<Frame> frames_;
  std::deque<FunctionDef> functions_;  // the uninterpreted functions, one per name and arity
  std::vector<VarId> access_var_;  // by node; invalid for none (4 bytes where an optional takes 8)
  bool control_flow_ = false;
  // Names to ids (interned: the names are the NodeDecls', the EdgeDecls',
  // the variables' own). The builder checks node and edge ids with indexes
  // of its own and lets go of them once the edges are in, before the frames
  // and a compiled graph take memory: these two are made on the first
  // lookup (few commands make one: a session's fetches and targets).
  NameIndex var_index_;
  mutable std::once_flag node_index_once_, edge_index_once_;
  mutable NameIndex node_index_, edge_index_;
  std::vector<NodeId> topo_;
  mutable std::once_flag hash_once_;
  mutable std::uint64_t hash_ = 0;
  [[nodiscard]] std::uint64_t compute_hash() const;
  // The fetch name an edge was given, if it is an output edge given one.
  [[nodiscard]] const CompactString* given_fetch(const Edge& e) const {
    return e.is_output() && e.fetch_given != Edge::kFetchIsId ? &fetches_given_[e.fetch_given] : nullptr;
  }
  template <class T>
  static std::uint32_t index_of(const std::vector<T>& table, const T& entry) {
    assert(!std::less<const T*>()(&entry, table.data()) && std::less<const T*>()(&entry, table.data() + table.size()));
    return static_cast<std::uint32_t>(&entry - table.data());
  }
};

// Builds a Program from a spec given in two parts: all of it but its edges,
// then its edges, in order, in as many pieces as come. A reader of a large
// graph hands each piece over as it has read it and frees it once taken, so
// the spec's edges never lie in memory all at once. Program::build is this
// with the edges in one piece; the problems found are the same, in the same
// order, however the edges are cut.
class ProgramBuilder {
 public:
  // The spec without its edges and without a library (make_static has made
  // it static), and how many edges will come: std::logic_error otherwise.
  // Checks the variables, the functions and the nodes; throws Stopped when
  // `stop` (may be null) stops the work.
  ProgramBuilder(ProgramSpec spec, std::size_t edges, const StopToken* stop = nullptr);
  ProgramBuilder(const ProgramBuilder&) = delete;
  ProgramBuilder& operator=(const ProgramBuilder&) = delete;
  ~ProgramBuilder();
  // The next edges, after those given before (std::logic_error past the
  // number declared): the Program moves out what it keeps of them, and the
  // caller may free them on return.
  void add_edges(std::span<EdgeSpec> edges);
  // The Program, once every edge declared has come (std::logic_error before,
  // and after an earlier finish, whatever it gave or threw): throws
  // InputError listing every problem found (G-*), as Program::build does.
  std::shared_ptr<const Program> finish();

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace tfsem
