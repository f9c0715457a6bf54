#include "fast_exec/compiled.hpp"

#include "semantics/diagnostic.hpp"
#include "support/prefetch.hpp"

#include <algorithm>
#include <iterator>
#include <map>
#include <stdexcept>
#include <string>

namespace tfsem::fast_exec {

namespace {

std::uint32_t u32(std::size_t v) { return static_cast<std::uint32_t>(v); }

// How many nodes ahead the pass over the nodes loads the edges their outputs take.
constexpr std::size_t kAhead = 8;

std::uint32_t site_of(const Node& n) { return u32(std::get<std::int64_t>(n.attrs().at(std::string(kSiteAttr)))); }

// A function of no inputs that always gives the same tuple: applied once, here.
bool is_constant(const Node& n) { return n.op.kind == OpKind::function && n.op.fn->inputs == 0 && !n.op.fn->nondeterministic; }

// Where a token that node `src` puts on edge e goes (C-SLOT, C-CALL, C-RETURN);
// kinds: each node's.
Route route_of(const std::vector<OpKind>& kinds, const Edge& e) {
  if (e.is_output()) return Route::output;
  if (e.is_input()) return Route::same;  // delivered when the run starts
  if (e.call && kinds[e.dst.index()] == OpKind::return_) return Route::caller;
  switch (kinds[e.src.index()]) {
    case OpKind::enter: return Route::enter;
    case OpKind::exit: return Route::exit;
    case OpKind::next_iteration: return Route::next;
    case OpKind::call: return e.kind == EdgeKind::control ? Route::same : Route::call;
    default: return Route::same;
  }
}

}  // namespace

CompiledGraph::CompiledGraph(std::shared_ptr<const Program> p, const TermOptions& terms) : program(std::move(p)) {
  const auto& prog = *program;
  const auto& pframes = prog.frames();
  frames.resize(pframes.size());
  nodes.resize(prog.nodes().size());
  // Local indices: a node's among its frame's nodes, a data edge's among the
  // input slots of its destination's frame; child slots: the loop frames and
  // the call sites an iteration of each frame can start.
  std::vector<std::map<std::pair<std::uint32_t, std::uint32_t>, std::uint32_t>> child_slots(pframes.size());
  for (std::size_t f = 0; f < pframes.size(); ++f) {
    auto& cf = frames[f];
    cf.kind = pframes[f].kind;
    cf.parallel_iterations = std::max<std::uint32_t>(1, pframes[f].parallel_iterations);
    cf.enters = static_cast<std::int32_t>(pframes[f].enters.size());
    cf.nodes.reserve(pframes[f].nodes.size());
    cf.pending.reserve(pframes[f].nodes.size());
    for (auto n : pframes[f].nodes) {
      nodes[n.index()].frame = u32(f);
      nodes[n.index()].local = u32(cf.nodes.size());
      cf.nodes.push_back(u32(n.index()));
    }
  }
  // Each node's kind and local index, 5 bytes per node: the passes over the
  // edges read their ends' at random, which a Node (96 bytes) or a
  // CompiledNode (80) would make a cache miss each.
  std::vector<OpKind> kinds(prog.nodes().size());
  std::vector<std::uint32_t> locals(prog.nodes().size());
  for (std::size_t i = 0; i < nodes.size(); ++i) locals[i] = nodes[i].local;
  std::map<std::pair<std::uint32_t, std::uint32_t>, std::uint32_t> site_calls;
  std::size_t data_inputs = 0;
  // Constant nodes of one function and one value of attributes that
  // several nodes hold (a reader gives the nodes that wrote one text one
  // value) share their tuple: the first of them makes it. A value no other
  // node holds needs no lookup.
  std::map<std::pair<const FunctionDef*, const Attrs*>, std::uint32_t> tuples;
  std::vector<bool> makes(prog.nodes().size());
  std::size_t constant_values = 0;
  for (std::size_t i = 0; i < prog.nodes().size(); ++i) {
    const auto& n = prog.node(NodeId(i));
    if (n.op.kind == Op::Kind::function && prog.variable_of(NodeId(i)))
      throw InputError("X-EXEC", prog.where(n), "node '" + n.name() + "'",
                       "the fast executor does not run a function dereferencing a variable edge (S-DEREF, "
                       "--tf1-refs); tfsem check and trace explore this graph");
    if (n.op.kind == Op::Kind::send && prog.variable_of(NodeId(i)))
      throw InputError("X-EXEC", prog.where(n), "node '" + n.name() + "'",
                       "the fast executor does not run a Send of a variable edge (S-SEND, the copy of a reference); "
                       "tfsem check and trace explore this graph");
    auto& c = nodes[i];
    c.kind = kinds[i] = n.op.kind;
    data_inputs += n.in.size();
    if (is_constant(n)) {
      const auto next = u32(constant_values + 1);
      c.constant = n.decl->attrs.unique() ? next : tuples.try_emplace({n.op.fn, &n.attrs()}, next).first->second;
      // (A tuple of no tensors, a NoOp's, takes no room: the index is the
      // next tuple's too, and making it again adds nothing.)
      makes[i] = c.constant == next;
      if (makes[i]) constant_values += n.out.size();
    }
    if (c.kind == OpKind::enter || c.kind == OpKind::call) {
      c.target = prog.edge(n.out[0]).frame.value;
      c.site = c.kind == OpKind::call ? site_of(n) : 0;
      auto& slots = child_slots[c.frame];
      c.child = slots.emplace(std::pair{c.target, c.site}, u32(slots.size())).first->second;
      if (c.kind == OpKind::call) ++site_calls[{c.target, c.site}];
    }
    if (c.kind == OpKind::return_) c.site = site_of(n);
  }
  for (std::size_t f = 0; f < frames.size(); ++f) frames[f].children = u32(child_slots[f].size());
  // By edge: a data edge's input slot, an output edge's index in `fetched`
  // (kNone: not fetched), as CompiledOut::slot holds them.
  std::vector<std::uint32_t> slot(prog.edges().size(), 0);
  auto out_of = [&](std::size_t e) {
    const auto& edge = prog.edge(EdgeId(e));
    CompiledOut o;
    o.edge = u32(e);
    o.route = route_of(kinds, edge);
    o.control = edge.kind == EdgeKind::control;
    o.slot = slot[e];
    if (!edge.is_output()) {
      o.dst = edge.dst.value;
      o.local = locals[o.dst];
      const auto kind = kinds[o.dst];
      o.into = kind == OpKind::merge ? Into::merge : kind == OpKind::return_ ? Into::return_ : Into::node;
    }
    return o;
  };
  // One pass over the edges (32 bytes each: the three million of a
  // million-node layered graph are 96 MB, and an output edge's fetch name is
  // its id, or one of the Program's table of those given, in the same
  // order): input slots, the fetched outputs' indices, back edges, call
  // sites and the input edges.
  for (std::size_t e = 0; e < prog.edges().size(); ++e) {
    const auto& edge = prog.edge(EdgeId(e));
    if (edge.is_output()) {
      slot[e] = kNone;
      if (!prog.fetch(edge).empty()) {
        slot[e] = u32(fetched.size());
        fetched.push_back(u32(e));
      }
    } else if (edge.kind != EdgeKind::control) {
      slot[e] = frames[nodes[edge.dst.index()].frame].slots++;
    }
    if (edge.back) {  // the table is made for the first one: a graph without loops has none
      if (back_edge.empty()) back_edge.assign(prog.edges().size(), 0);
      back_edge[e] = 1;
    }
    if (edge.call && !edge.is_input() && kinds[edge.src.index()] == OpKind::call) {
      if (call_site.empty()) call_site.assign(prog.edges().size(), kNone);
      call_site[e] = site_of(prog.node(edge.src));
    }
    if (edge.is_input()) inputs.push_back(out_of(e));
  }
  if (!site_calls.empty()) calls_at_site.assign(prog.nodes().size(), 0);
  // Sized exactly: a block the loader backs at once is backed whole, used or not.
  in_slots.reserve(data_inputs);
  in_edges.reserve(data_inputs);
  outs.reserve(prog.edges().size() - inputs.size());
  constants.reserve(constant_values);
  for (std::size_t i = 0; i < prog.nodes().size(); ++i) {
    // The edges a node's outputs take are anywhere among the edges (each one's
    // id is its place in the spec): their lines are loaded some nodes ahead.
    if (i + kAhead < prog.nodes().size()) {
      const auto& ahead = prog.node(NodeId(i + kAhead));
      for (const auto* list : {&ahead.out, &ahead.control_out})
        for (auto e : *list) {
          prefetch(&prog.edge(e).dst);
          prefetch(&prog.edge(e).call);
        }
    }
    const NodeId id(i);
    const auto& n = prog.node(id);
    auto& c = nodes[i];
    auto& frame = frames[c.frame];
    c.fn = n.op.fn;
    c.attrs = &n.attrs();
    c.stateful = n.op.kind == Op::Kind::read || n.op.kind == Op::Kind::assign;
    if (n.op.kind == Op::Kind::var) c.var = n.op.var;
    else if (c.stateful) c.var = *prog.variable_of(id);
    if (c.kind == OpKind::call) calls_at_site[i] = site_calls[{c.target, c.site}];
    c.invariant = c.kind == OpKind::enter && prog.edge(n.out[0]).invariant;
    c.in_begin = u32(in_slots.size());
    for (auto e : n.in) {
      in_slots.push_back(slot[e.index()]);
      in_edges.push_back(e.value);
      c.loop_merge = c.loop_merge || (c.kind == OpKind::merge && prog.edge(e).back);
    }
    c.in_count = u32(n.in.size());
    c.out_begin = u32(outs.size());
    for (auto e : n.out) outs.push_back(out_of(e.index()));
    c.returns = std::any_of(outs.begin() + c.out_begin, outs.end(), [](const CompiledOut& o) { return o.route == Route::caller; });
    c.out_count = u32(n.out.size());
    for (auto e : n.control_out) outs.push_back(out_of(e.index()));
    c.control_out_count = u32(n.control_out.size());
    // A Merge waits for its control edges here, and for its data inputs apart
    // (C-MERGE: the first live one, or every expected one DEAD).
    c.pending = static_cast<std::int32_t>(n.control_in.size() + (c.kind == OpKind::merge ? 0 : n.in.size()));
    if (c.kind == OpKind::merge) frame.merges.push_back(u32(i));
    if (c.kind == OpKind::exit) {
      c.exit = u32(frame.exits.size());
      frame.exits.push_back(u32(i));
    }
    if (makes[i]) {
      auto tuple = std::move(apply(*c.fn, {}, n.attrs(), terms).front());
      // A function gives a tensor per output (its kernel's contract), and
      // G-ARITY gives it an edge per output: the tuples lie end to end.
      if (tuple.size() != n.out.size())
        throw std::logic_error("constant node '" + n.name() + "' gave " + std::to_string(tuple.size()) +
                               " tensors for its " + std::to_string(n.out.size()) + " outputs");
      std::move(tuple.begin(), tuple.end(), std::back_inserter(constants));
    }
  }
  for (auto& f : frames) {
    for (auto n : f.nodes) f.pending.push_back(nodes[n].pending);
    for (auto n : f.nodes)
      if (nodes[n].pending == 0 && nodes[n].kind != OpKind::merge) f.sources.push_back(n);
  }
}

}  // namespace tfsem::fast_exec
