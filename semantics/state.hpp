// States (section 3.2.1): "a mapping VarValue from Vars to Tensors" and "a
// mapping InTransit from the edges of the TF graph to contents".
#pragma once

#include "semantics/content.hpp"
#include "semantics/tensor.hpp"

#include <string>
#include <vector>

namespace tfsem {

class Program;

struct State {
  std::vector<Tensor> var_value;    // VarValue, indexed by VarId
  std::vector<Content> in_transit;  // InTransit, indexed by EdgeId

  friend bool operator==(const State&, const State&) = default;
  [[nodiscard]] std::size_t hash() const;
};

std::string content_to_string(const Program& p, const Content& c, std::size_t max_elements = 64);
// The state as the paper's figures show it: VarValue, then every non-EMPTY edge.
std::string state_to_string(const Program& p, const State& s, const std::string& indent = "  ",
                            std::size_t max_elements = 64);

}  // namespace tfsem

template <>
struct std::hash<tfsem::State> {
  std::size_t operator()(const tfsem::State& s) const noexcept { return s.hash(); }
};
