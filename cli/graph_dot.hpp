// The graph as Graphviz in the paper's conventions: solid tensor edges,
// dashed variable edges, dotted control edges, input and output edges as
// dangling arrows. Loop frames are clusters (each function's frame one beside
// the root), and so are TensorFlow name scopes in each.
#pragma once

#include "semantics/semantics.hpp"

#include <string>

namespace tfsem::cli {

// With `with_races`, the graph is explored and every racing pair marked in
// red; with a `state_schedule` ("initial": no step), the contents of the state
// after it are drawn on the edges, as Figures 2 to 4 do. Throws InputError
// when the schedule names a step that is not enabled.
std::string graph_dot(const Semantics& sem, bool with_races, const std::string& state_schedule);

}  // namespace tfsem::cli
