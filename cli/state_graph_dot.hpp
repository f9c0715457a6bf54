// explore --dot: the explored state graph as Graphviz, each state with its
// VarValue and non-EMPTY edges, terminal states doubled, each transition
// labelled with its firings.
#pragma once

#include "explorer/explore.hpp"

#include <cstdint>
#include <sstream>
#include <string>

namespace tfsem::cli {

class StateGraphDot {
 public:
  StateGraphDot(const Semantics& sem, std::uint64_t max_states) : sem_(sem), max_(max_states) {}

  // Draws the states and transitions the search reports, the first max_states states.
  explorer::Observer observer();
  // Writes the drawing (to stdout when `file` is empty); throws InputError
  // when the search stored more than max_states states.
  void write(const std::string& file, std::uint64_t states) const;

 private:
  const Semantics& sem_;
  std::uint64_t max_;
  std::ostringstream out_;
};

}  // namespace tfsem::cli
