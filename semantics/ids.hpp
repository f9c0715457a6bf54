// Strong integer ids for the program's nodes, edges, variables and frames, and
// for interned execution contexts.
#pragma once

#include <compare>
#include <cstdint>
#include <functional>
#include <limits>

namespace tfsem {

// An index into one of the program's tables; distinct tags keep a NodeId from
// being passed where an EdgeId is meant.
template <class Tag>
struct Id {
  std::uint32_t value = std::numeric_limits<std::uint32_t>::max();

  constexpr Id() = default;
  constexpr explicit Id(std::uint32_t v) : value(v) {}
  constexpr explicit Id(std::size_t v) : value(static_cast<std::uint32_t>(v)) {}

  [[nodiscard]] constexpr bool valid() const { return value != std::numeric_limits<std::uint32_t>::max(); }
  [[nodiscard]] constexpr std::size_t index() const { return value; }
  friend constexpr auto operator<=>(Id, Id) = default;
};

using NodeId = Id<struct NodeTag>;
using EdgeId = Id<struct EdgeTag>;
using VarId = Id<struct VarTag>;  // an element of the paper's set Vars
using FrameId = Id<struct FrameTag>;      // a static loop frame; 0 is the root frame
using ContextId = Id<struct ContextTag>;  // an interned execution context; 0 is the root context

}  // namespace tfsem

template <class Tag>
struct std::hash<tfsem::Id<Tag>> {
  std::size_t operator()(tfsem::Id<Tag> id) const noexcept { return std::hash<std::uint32_t>{}(id.value); }
};
