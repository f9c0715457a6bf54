// What an edge holds (section 3.2.1): an element of Tensors or EMPTY on a tensor
// edge, an element of Vars or EMPTY on a variable edge, GO or EMPTY on a control edge.
#pragma once

#include "semantics/ids.hpp"
#include "semantics/tensor.hpp"

#include <variant>

namespace tfsem {

struct Empty {  // EMPTY: not-yet-produced or already-consumed data
  friend bool operator==(Empty, Empty) { return true; }
};
struct Go {  // GO: the trigger carried by control edges
  friend bool operator==(Go, Go) { return true; }
};

using Content = std::variant<Empty, Go, VarId, Tensor>;

inline bool is_empty(const Content& c) { return std::holds_alternative<Empty>(c); }
std::size_t hash_content(const Content& c);

enum class EdgeKind : std::uint8_t { tensor, variable, control };
std::string_view edge_kind_name(EdgeKind k);

}  // namespace tfsem
