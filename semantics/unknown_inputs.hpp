// The unknown inputs a Switch's predicate may depend on: the input edges
// holding a term (an unfed placeholder's symbol) and the variables holding
// one, that the predicates read through data edges, back edges and variable
// updates. A Switch on such a predicate branches under a path condition
// (C-SWITCH-SYMBOLIC); feeding the inputs makes it concrete.
#pragma once

#include "semantics/semantics.hpp"

#include <span>
#include <string>
#include <vector>

namespace tfsem {

struct UnknownInputs {
  std::vector<std::string> inputs, variables;  // input edges' and variables' names, sorted
  [[nodiscard]] bool empty() const { return inputs.empty() && variables.empty(); }
};

// Those of the predicates of `switches`.
UnknownInputs unknown_inputs(const Semantics& sem, std::span<const NodeId> switches);
// Those of the Switches of frame f: for a loop, what its condition depends on.
UnknownInputs unknown_inputs(const Semantics& sem, FrameId f);
// Those of every Switch of the program.
UnknownInputs unknown_inputs(const Semantics& sem);

// "input 'n', variable 'v' (feed with --feed n=VALUE)".
std::string unknown_inputs_text(const UnknownInputs& u);

}  // namespace tfsem
