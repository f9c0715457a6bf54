// Parameterized benchmark families, each a graph of size n: the shapes where
// reductions matter (docs/explorer.md) and that SPIN is compared on.
#pragma once

#include "semantics/program.hpp"

#include <string>
#include <string_view>
#include <vector>

namespace tfsem::generate {

struct Family {
  std::string_view name;
  std::string_view description;
  ProgramSpec (*make)(int n);
};

// independent-chains, lastwrite, lost-update, assign-add, sgd-workers, and the
// training-shaped lstm-training and cnn-training (training.hpp).
const std::vector<Family>& families();
// Throws InputError for an unknown family or n < 1.
ProgramSpec family_graph(std::string_view name, int n);

}  // namespace tfsem::generate
