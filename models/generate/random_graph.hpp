// Seeded random well-formed graphs (section 3.1.1): variables shared by
// several Read and Assign-f nodes, functions (Choice among them), control
// edges, input and output edges; with max_constructs > 0, also conditionals
// and while loops (section 4), nested, with accesses inside; with
// max_library > 0, also a library of recursive functions (thesis section 5)
// and calls of them. The same seed gives the same graph. Used to compare the
// explorer's reductions with the full search, and by fuzzing.
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
  int max_library = 0;      // functions of the library, recursive and mutually recursive, called from the graph's scopes
  int symbolic_percent = 0; // chance of a conditional on an unknown input (a term over the symbols P0, P1)
};

// The options of `tfsem generate random-control`: small loops and conditionals.
inline constexpr RandomGraphOptions kRandomControl{.max_accesses = 2, .max_functions = 1, .max_constructs = 1, .max_loops = 1, .max_nesting = 1};

// The options of `tfsem generate random-symbolic`: up to two conditionals, no
// loop, mostly on unknown inputs, sometimes on one term (C-SWITCH-SYMBOLIC, S-PATH).
inline constexpr RandomGraphOptions kRandomSymbolic{.max_accesses = 2, .max_functions = 1, .max_constructs = 2, .max_loops = 0,
                                                    .max_nesting = 1, .symbolic_percent = 60};

// The options of `tfsem generate random-recursive`: the same with a library of recursive functions.
inline constexpr RandomGraphOptions kRandomRecursive{
    .max_accesses = 2, .max_functions = 1, .max_constructs = 1, .max_loops = 1, .max_nesting = 1, .max_library = 2};

ProgramSpec random_graph(std::uint64_t seed, const RandomGraphOptions& options = {});

// The kinds of random graph that `tfsem generate` names.
struct RandomKind {
  const char* name;
  RandomGraphOptions options;
  const char* description;
};
inline constexpr RandomKind kRandomKinds[] = {
    {"random", {}, "the seeded random well-formed graph N (shared variables, races, control edges, Choice)"},
    {"random-control", kRandomControl, "the same with conditionals and while loops, nested, with accesses inside"},
    {"random-symbolic", kRandomSymbolic,
     "the same with conditionals on unknown inputs (terms over the symbols P0 and P1), branching under path conditions"},
    {"random-recursive", kRandomRecursive,
     "the same with a library of recursive functions (mutually, once or twice a call, with accesses inside), called "
     "from the graph, its conditionals and its loops"},
};

}  // namespace tfsem::generate
