#include "semantics/prune.hpp"

#include "semantics/diagnostic.hpp"

#include <algorithm>
#include <set>

namespace tfsem {

std::shared_ptr<const Program> prune(const Program& program, const std::vector<std::string>& fetches) {
  std::set<std::string, std::less<>> wanted(fetches.begin(), fetches.end());
  for (const auto& f : wanted) {
    const auto& edges = program.edges();
    if (std::none_of(edges.begin(), edges.end(), [&](const Edge& e) { return e.is_output() && program.fetch(e) == f; }))
      throw InputError("S-PRUNE", "", "fetch '" + f + "'", "the program has no output edge with this fetch name");
  }
  auto selected = [&](const Edge& e) {
    return !program.fetch(e).empty() && (wanted.empty() || wanted.count(program.fetch(e)));
  };

  // Backwards from the fetched outputs over G.
  std::vector<bool> kept(program.nodes().size(), false);
  std::vector<NodeId> todo;
  auto keep = [&](NodeId n) {
    if (!kept[n.index()]) {
      kept[n.index()] = true;
      todo.push_back(n);
    }
  };
  for (const auto& e : program.edges())
    if (selected(e)) keep(e.src);
  while (!todo.empty()) {
    const auto n = todo.back();
    todo.pop_back();
    for (auto d : program.incoming(n))
      if (!program.edge(d).is_input()) keep(program.edge(d).src);
  }

  // A graph with nothing fetched would prune to no graph at all (G-EMPTY).
  if (std::none_of(kept.begin(), kept.end(), [](bool k) { return k; }))
    throw InputError("S-PRUNE", "", "", "no output edge is fetched, so pruning would keep no node");
  const auto& spec = program.spec();
  ProgramSpec out{spec.name, spec.description, spec.where, spec.variables, {}, {}, spec.functions, {}};
  for (std::size_t i = 0; i < spec.nodes.size(); ++i)
    if (kept[i]) out.nodes.push_back(spec.nodes[i]);
  for (std::size_t i = 0; i < spec.edges.size(); ++i) {
    const auto& e = program.edge(EdgeId(i));
    const bool src_kept = e.is_input() || kept[e.src.index()];
    const bool dst_kept = e.is_output() ? selected(e) : kept[e.dst.index()];
    if (!src_kept || (e.is_input() && !dst_kept)) continue;
    auto edge = spec.edges[i];
    if (!dst_kept) {  // the output is dropped, as TensorFlow drops an unfetched value
      edge.to.reset();
      edge.fetch = "";
    }
    out.edges.push_back(std::move(edge));
  }
  return Program::build(std::move(out));
}

}  // namespace tfsem
