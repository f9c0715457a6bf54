// Seeded random well-formed graphs (section 3.1.1): variables shared by
// several Read and Assign-f nodes, functions (Choice among them), control
// edges, input and output edges. The same seed gives the same graph. Used to
// compare the explorer's reductions with the full search, and by fuzzing.
#pragma once

#include "semantics/program.hpp"

#include <cstdint>

namespace tfsem::generate {

struct RandomGraphOptions {
  int max_variables = 2;
  int max_accesses = 5;     // Read and Assign-f nodes
  int max_functions = 3;    // Add, Sub, Mul, Neg, Copy, Choice
  int control_percent = 30; // chance of an extra control edge into a node
};

ProgramSpec random_graph(std::uint64_t seed, const RandomGraphOptions& options = {});

}  // namespace tfsem::generate
