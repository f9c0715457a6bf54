// The static frames of a program (section 4; thesis section 3.2): which loop
// frame each node fires in, each edge's tokens live in, and the rules that
// make frames consistent (G-DAG, G-FRAME, G-LOOP, G-REF, G-FETCH).
#pragma once

#include "semantics/diagnostic.hpp"
#include "semantics/program.hpp"

#include <vector>

namespace tfsem {

// Fills the program's frames, node and edge frames, back and invariant edges,
// topological order and accessed variables; appends every violated rule to
// diags. Runs after the nodes' operations and arities have been checked.
void build_frames(Program& p, std::vector<Diagnostic>& diags);

}  // namespace tfsem
