// Refinement (X-REFINES): graph B refines graph A when every outcome of B, as
// it shows on what the two share (fetch names and variables, and whether it is
// stuck), is an outcome of A. The check for any graph rewrite (DCE, CSE,
// constant folding, fusion, the function transformations): B refines A when
// it adds no behaviour.
#pragma once

#include "explorer/explore.hpp"

#include <set>
#include <string>
#include <vector>

namespace tfsem::explorer {

// An outcome of B that A lacks: what it shows on what the two share, and its witness in B.
struct Extra {
  std::string shown;
  Schedule witness;
};

struct Refinement {
  std::set<std::string> fetches, variables;  // what the two share, compared on
  Result specification, implementation;      // A's and B's explorations
  std::vector<Extra> extra;                  // B's outcomes outside A's, in B's order (none when incomplete)
  [[nodiscard]] bool complete() const { return specification.complete && implementation.complete; }
  [[nodiscard]] bool refines() const { return complete() && extra.empty(); }
};

// Explores A (the specification) and B (the implementation) with `options`.
Refinement refines(const Semantics& a, const Semantics& b, const ExploreOptions& options);

}  // namespace tfsem::explorer
