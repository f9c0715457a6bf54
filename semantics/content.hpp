// What an edge holds (section 3.2.1): an element of Tensors or EMPTY on a tensor
// edge, an element of Vars or EMPTY on a variable edge, GO or EMPTY on a control edge.
// With control flow (section 4), any edge may also hold DEAD: the token of an
// untaken branch, which carries no value (C-DEAD).
#pragma once

#include "semantics/ids.hpp"
#include "semantics/tensor.hpp"

#include <optional>
#include <string_view>
#include <variant>

namespace tfsem {

struct Empty {  // EMPTY: not-yet-produced or already-consumed data
  friend bool operator==(Empty, Empty) { return true; }
};
struct Go {  // GO: the trigger carried by control edges
  friend bool operator==(Go, Go) { return true; }
};
struct Dead {  // DEAD: "dead tokens" of an untaken branch (thesis 3.2, is_dead)
  friend bool operator==(Dead, Dead) { return true; }
};

using Content = std::variant<Empty, Go, Dead, VarId, Tensor>;

inline bool is_empty(const Content& c) { return std::holds_alternative<Empty>(c); }
inline bool is_dead(const Content& c) { return std::holds_alternative<Dead>(c); }
// What a rule needs to know of a slot: nothing there, a dead token, or a live one.
enum class Holds : std::uint8_t { empty, dead, live };
inline Holds holds(const Content& c) { return is_empty(c) ? Holds::empty : is_dead(c) ? Holds::dead : Holds::live; }
std::size_t hash_content(const Content& c);

enum class EdgeKind : std::uint8_t { tensor, variable, control };
std::string_view edge_kind_name(EdgeKind k);
// The kind a name names ("tensor", "variable", "control"), if any.
std::optional<EdgeKind> edge_kind_of(std::string_view name);

}  // namespace tfsem
