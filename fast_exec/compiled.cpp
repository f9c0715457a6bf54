#include "fast_exec/compiled.hpp"

#include "semantics/diagnostic.hpp"

namespace tfsem::fast_exec {

CompiledGraph::CompiledGraph(std::shared_ptr<const Program> p, const TermOptions& terms) : program(std::move(p)) {
  const auto& prog = *program;
  for (std::size_t i = 0; i < prog.nodes().size(); ++i)
    if (const auto& n = prog.node(NodeId(i)); n.op.kind == Op::Kind::function && prog.variable_of(NodeId(i)))
      throw InputError("X-EXEC", n.where, "node '" + n.name + "'",
                       "the fast executor does not run a function dereferencing a variable edge (S-DEREF, "
                       "--tf1-refs); tfsem check and trace explore this graph");
  for (const auto& n : prog.nodes())
    if (const auto k = n.op.kind; k != Op::Kind::function && k != Op::Kind::var && k != Op::Kind::read && k != Op::Kind::assign)
      throw InputError("X-EXEC", n.where, "node '" + n.name + "'",
                       "the fast executor runs the section 3 core only, not control flow (" +
                           prog.label(prog.find_node(n.name).value()) + "); tfsem check and trace explore this graph");
  nodes.reserve(prog.nodes().size());
  auto u32 = [](std::size_t v) { return static_cast<std::uint32_t>(v); };
  for (std::size_t i = 0; i < prog.nodes().size(); ++i) {
    const NodeId id(i);
    const auto& n = prog.node(id);
    CompiledNode c;
    c.kind = n.op.kind;
    c.fn = n.op.fn;
    c.attrs = &n.attrs;
    c.stateful = n.op.kind == Op::Kind::read || n.op.kind == Op::Kind::assign;
    if (n.op.kind == Op::Kind::var) c.var = n.op.var;
    else if (c.stateful) c.var = *prog.variable_of(id);
    c.in_begin = u32(in_edges.size());
    for (auto e : n.in) in_edges.push_back(e.value);
    c.in_count = u32(n.in.size());
    c.out_begin = u32(out_edges.size());
    for (auto e : n.out) out_edges.push_back(e.value);
    c.out_count = u32(n.out.size());
    c.control_out_begin = u32(control_out_edges.size());
    for (auto e : n.control_out) control_out_edges.push_back(e.value);
    c.control_out_count = u32(n.control_out.size());
    c.succ_begin = u32(succ.size());
    for (auto e : prog.outgoing(id))
      if (!prog.edge(e).is_output()) succ.push_back(prog.edge(e).dst.value);
    c.succ_count = u32(succ.size()) - c.succ_begin;
    for (auto e : prog.incoming(id)) c.pending += prog.edge(e).is_input() ? 0 : 1;
    if (c.pending == 0) initially_ready.push_back(u32(i));
    if (c.kind == Op::Kind::function && c.fn->inputs == 0 && !c.fn->nondeterministic) {
      constants.push_back(std::move(apply(*c.fn, {}, n.attrs, terms).front()));
      c.constant = u32(constants.size());
    }
    nodes.push_back(c);
  }
  for (std::size_t e = 0; e < prog.edges().size(); ++e)
    if (prog.edge(EdgeId(e)).is_output() && !prog.edge(EdgeId(e)).fetch.empty()) fetched.push_back(u32(e));
}

}  // namespace tfsem::fast_exec
