#include "explorer/fix.hpp"

#include "semantics/diagnostic.hpp"

#include <algorithm>

namespace tfsem::explorer {

namespace {

using Edges = std::vector<std::pair<NodeId, NodeId>>;

class FixSearch {
 public:
  FixSearch(const Semantics& sem, const FixOptions& o) : sem_(sem), o_(o) {}

  // The fixed graph's one outcome, if adding `edges` makes it deterministic.
  std::optional<Fix> verify(const Edges& edges) {
    if (spent_ >= o_.max_explorations) return std::nullopt;
    ++spent_;
    const auto& p = sem_.program();
    ProgramSpec spec = p.spec();
    for (const auto& [a, b] : edges) {
      EdgeSpec e;
      e.id = unique_edge_id(spec, "fix_" + p.node(a).name + "_" + p.node(b).name);
      e.kind = "control";
      e.from = PortRef{p.node(a).name, std::nullopt};
      e.to = PortRef{p.node(b).name, std::nullopt};
      spec.edges.push_back(std::move(e));
    }
    std::shared_ptr<const Program> fixed;
    try {
      fixed = Program::build(spec);
    } catch (const InputError&) {
      return std::nullopt;  // the edges close a cycle
    }
    const auto r = explore(Semantics(fixed, sem_.options()), o_.explore);
    if (!r.deterministic()) return std::nullopt;
    return Fix{edges, std::move(spec), r.outcomes.front()};
  }

  [[nodiscard]] bool budget_left() const { return spent_ < o_.max_explorations; }

 private:
  const Semantics& sem_;
  const FixOptions& o_;
  std::size_t spent_ = 0;

  static std::string unique_edge_id(const ProgramSpec& spec, const std::string& base) {
    auto taken = [&](const std::string& id) {
      return std::any_of(spec.edges.begin(), spec.edges.end(), [&](const EdgeSpec& e) { return e.id == id; });
    };
    std::string id = base;
    for (int k = 2; taken(id); ++k) id = base + "_" + std::to_string(k);
    return id;
  }
};

// Position of each node in a schedule (nodes that do not fire come last).
std::vector<std::size_t> positions(const Program& p, const Schedule& s) {
  std::vector<std::size_t> at(p.nodes().size(), s.size());
  for (std::size_t i = 0; i < s.size(); ++i) at[s[i].node.index()] = i;
  return at;
}

}  // namespace

std::vector<Fix> suggest_fixes(const Semantics& sem, const Result& r, const FixOptions& options) {
  std::vector<Fix> fixes;
  if (!r.complete || r.deterministic()) return fixes;
  std::vector<const Race*> harmful;
  for (const auto& race : r.races)
    if (race.harmful) harmful.push_back(&race);
  FixSearch search(sem, options);
  // Single edges may spend half the budget; ordering every race needs the rest.
  if (2 * harmful.size() <= options.max_explorations / 2)
    for (const auto* race : harmful)
      for (const auto& edge : {std::pair{race->first, race->second}, std::pair{race->second, race->first}})
        if (auto fix = search.verify({edge})) fixes.push_back(std::move(*fix));
  if (!fixes.empty() || harmful.empty()) return fixes;
  // Order every harmful race as some outcome's witness does, then drop the
  // edges that are not needed.
  for (const auto& outcome : r.outcomes) {
    if (!search.budget_left()) break;
    const auto at = positions(sem.program(), outcome.witness);
    Edges edges;
    for (const auto* race : harmful)
      edges.push_back(at[race->first.index()] < at[race->second.index()] ? std::pair{race->first, race->second}
                                                                          : std::pair{race->second, race->first});
    auto fix = search.verify(edges);
    if (!fix) continue;
    for (std::size_t i = fix->control_edges.size(); i-- > 0 && fix->control_edges.size() > 1;) {
      auto fewer = fix->control_edges;
      fewer.erase(fewer.begin() + static_cast<std::ptrdiff_t>(i));
      if (auto smaller = search.verify(fewer)) fix = std::move(smaller);
    }
    const bool known = std::any_of(fixes.begin(), fixes.end(), [&](const Fix& f) { return f.control_edges == fix->control_edges; });
    if (!known) fixes.push_back(std::move(*fix));
  }
  return fixes;
}

}  // namespace tfsem::explorer
