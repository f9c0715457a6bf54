// S-PRUNE (footnote 7): TensorFlow "decides what parts of a graph to execute by
// working backwards from the values being fetched"; the semantics applies after.
#pragma once

#include "semantics/program.hpp"

#include <memory>
#include <string>
#include <vector>

namespace tfsem {

// Keeps the nodes from which a fetched output edge is reachable (all fetches
// when `fetches` is empty), their incoming edges and the fetched outputs. A kept
// node's edge into a pruned node becomes an output that is not fetched.
// Throws InputError for a fetch name the program does not have.
std::shared_ptr<const Program> prune(const Program& program, const std::vector<std::string>& fetches = {});

}  // namespace tfsem
