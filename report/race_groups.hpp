// The races of a search grouped by their static pair and variable: a race
// between two nodes inside a loop recurs in many pairs of iterations, and a
// reader wants the pair of nodes first, the contexts it occurs in summarized.
#pragma once

#include "explorer/result.hpp"

#include <cstddef>
#include <string>
#include <vector>

namespace tfsem::report {

struct RaceGroup {
  NodeId first, second;
  VarId var;
  std::vector<std::size_t> races;  // indices into Result::races, in their order
  std::size_t harmful = 0;         // how many of them are harmful
};

// The groups, in the order of each group's first race.
std::vector<RaceGroup> race_groups(const std::vector<explorer::Race>& races);

// The contexts the group's races occur in: "" when every one is the root
// context; "loop 'L': iterations 0-2 against 1-3" (and " in CONTEXT" for a
// loop nested in one) when all are iterations of one loop instance; else
// "contexts A; B against C", each side's first few.
std::string contexts_summary(const Semantics& sem, const std::vector<explorer::Race>& races, const RaceGroup& g);

// "harmful", "benign", or "harmful in K of N".
std::string harm_summary(const RaceGroup& g);

// The path condition its races' witnesses start under (S-PATH): "" when none
// has one, "when P is true" when they share one, else "under several path conditions".
std::string path_summary(const std::vector<explorer::Race>& races, const RaceGroup& g);

}  // namespace tfsem::report
