// Seeded random well-formed graphs (section 3.1.1): variables shared by
// several Read and Assign-f nodes, functions (Choice among them), control
// edges, input and output edges; with max_constructs > 0, also conditionals
// and while loops (section 4), nested, with accesses inside. The same seed
// gives the same graph. Used to compare the explorer's reductions with the
// full search, and by fuzzing.
#pragma once

#include "semantics/program.hpp"

#include <cstdint>

namespace tfsem::generate {

struct RandomGraphOptions {
  int max_variables = 2;
  int max_accesses = 5;     // Read and Assign-f nodes
  int max_functions = 3;    // Add, Sub, Mul, Neg, Copy, Choice
  int control_percent = 30; // chance of an extra control edge into a node
  int max_constructs = 0;   // conditionals and loops in the root (each may nest more)
  int max_loops = 2;        // while loops in the whole graph
  int max_nesting = 2;      // depth of conditionals and loops inside each other
};

// The options of `tfsem generate random-control`: small loops and conditionals.
inline constexpr RandomGraphOptions kRandomControl{.max_accesses = 2, .max_functions = 1, .max_constructs = 1, .max_loops = 1, .max_nesting = 1};

ProgramSpec random_graph(std::uint64_t seed, const RandomGraphOptions& options = {});

}  // namespace tfsem::generate
