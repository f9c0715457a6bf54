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

// independent-chains, lastwrite, lost-update, assign-add, sgd-workers.
const std::vector<Family>& families();
// Graphs in the shape of real training steps, for the benchmark of check on
// real graphs: lstm-training, cnn-training (training.hpp). Too large for the
// unreduced searches the families are compared with.
const std::vector<Family>& training_shapes();
// A family's or a training shape's graph; throws InputError for an unknown name or n < 1.
ProgramSpec family_graph(std::string_view name, int n);

}  // namespace tfsem::generate
