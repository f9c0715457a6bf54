#include "semantics/unknown_inputs.hpp"

#include <algorithm>
#include <iterator>

namespace tfsem {

UnknownInputs unknown_inputs(const Semantics& sem, std::span<const NodeId> switches) {
  const auto& p = sem.program();
  std::vector<bool> seen_edge(p.edges().size()), seen_var(p.variables().size());
  std::vector<EdgeId> work;
  UnknownInputs out;
  for (auto n : switches) work.push_back(p.node(n).in[1]);
  while (!work.empty()) {
    const auto d = work.back();
    work.pop_back();
    if (seen_edge[d.index()]) continue;
    seen_edge[d.index()] = true;
    const auto& e = p.edge(d);
    if (e.is_input()) {
      if (const auto* t = std::get_if<Tensor>(&p.initial(d)); t != nullptr && t->is_term()) out.inputs.emplace_back(e.name());
      continue;
    }
    const auto& src = p.node(e.src);
    work.insert(work.end(), src.in.begin(), src.in.end());
    const auto a = sem.access(e.src);
    if (a.kind == Access::Kind::none || seen_var[a.var.index()]) continue;
    seen_var[a.var.index()] = true;
    if (p.variable(a.var).initial.is_term()) out.variables.push_back(p.variable(a.var).name);
    for (std::size_t i = 0; i < p.nodes().size(); ++i)  // what its updates write
      if (const auto b = sem.access(NodeId(i)); b.kind == Access::Kind::update && b.var == a.var)
        work.insert(work.end(), p.node(NodeId(i)).in.begin(), p.node(NodeId(i)).in.end());
  }
  std::sort(out.inputs.begin(), out.inputs.end());
  std::sort(out.variables.begin(), out.variables.end());
  return out;
}

UnknownInputs unknown_inputs(const Semantics& sem, FrameId f) {
  std::vector<NodeId> switches;
  const auto& nodes = sem.program().frame(f).nodes;
  std::copy_if(nodes.begin(), nodes.end(), std::back_inserter(switches), [&](NodeId n) { return sem.branches(n); });
  return unknown_inputs(sem, switches);
}

UnknownInputs unknown_inputs(const Semantics& sem) {
  std::vector<NodeId> switches;
  for (std::size_t i = 0; i < sem.program().nodes().size(); ++i)
    if (sem.branches(NodeId(i))) switches.emplace_back(i);
  return unknown_inputs(sem, switches);
}

std::string unknown_inputs_text(const UnknownInputs& u) {
  std::string names, feeds;
  for (const auto& i : u.inputs) {
    names += (names.empty() ? "input '" : ", input '") + i + "'";
    feeds += (feeds.empty() ? "--feed " : " --feed ") + i + "=VALUE";
  }
  for (const auto& v : u.variables) names += (names.empty() ? "variable '" : ", variable '") + v + "'";
  return names + (feeds.empty() ? "" : " (feed with " + feeds + ")");
}

}  // namespace tfsem
