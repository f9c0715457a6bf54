// Fix suggestions for a nondeterministic graph: control edges that order the
// two nodes of harmful races, each suggestion checked by exploring the fixed
// graph before it is offered.
#pragma once

#include "explorer/explore.hpp"

#include <string>
#include <utility>
#include <vector>

namespace tfsem::explorer {

struct Fix {
  std::vector<std::pair<NodeId, NodeId>> control_edges;  // (from, to), in the original graph's ids
  ProgramSpec fixed;                                     // the graph with the edges added
  Outcome outcome;                                       // its one outcome, proved by exploration
};

struct FixOptions {
  ExploreOptions explore{};
  std::size_t max_explorations = 32;  // a budget: each candidate costs one exploration
};

// Single control edges first (one per direction of each harmful race, when
// they fit in half the budget), then, if none suffices, every harmful race
// ordered as one outcome's witness orders it, with edges that turn out
// unnecessary dropped. Empty when nothing within
// the budget makes the graph deterministic (for instance, when the
// nondeterminism comes from a relation f, not from a race).
std::vector<Fix> suggest_fixes(const Semantics& sem, const Result& r, const FixOptions& options = {});

}  // namespace tfsem::explorer
