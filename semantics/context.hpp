// Execution contexts (paper section 4; thesis section 3.2). "Each node fires
// at most once in each execution context, where an execution context
// identifies an iteration of each (possibly nested) loop that contains the
// node." A context is the stack of (frame, iteration) pairs from the outermost
// loop in; the root context is the empty stack. Contexts are interned, so a
// ContextId names one and states hold contexts as small integers. The table
// only grows, and interning is invisible to the rules: it is thread-safe, and
// a context's entry can be read without a lock.
#pragma once

#include "semantics/append_only.hpp"
#include "semantics/ids.hpp"

#include <compare>
#include <cstdint>
#include <mutex>
#include <unordered_map>

namespace tfsem {

inline constexpr ContextId kRootContext{std::uint32_t{0}};

// A node firing in an execution context: the unit of a step (C-ONCE).
struct Transition {
  NodeId node;
  ContextId context = kRootContext;
  friend auto operator<=>(const Transition&, const Transition&) = default;
};

// An edge in an execution context: where InTransit holds one content.
struct Slot {
  EdgeId edge;
  ContextId context = kRootContext;
  friend auto operator<=>(const Slot&, const Slot&) = default;
};

struct ContextEntry {
  ContextId parent;            // the enclosing context (invalid for the root)
  FrameId frame;               // the innermost frame (the root frame for the root)
  std::uint32_t iteration = 0;
  std::uint32_t depth = 0;     // frames on the stack
  ContextId first;             // iteration 0 of the same frame instance
  ContextId previous;          // iteration - 1 of it (invalid for iteration 0)
};

class Contexts {
 public:
  Contexts();
  Contexts(const Contexts&) = delete;
  Contexts& operator=(const Contexts&) = delete;

  // Iteration `iteration` of frame f entered from `parent` (interned).
  ContextId child(ContextId parent, FrameId f, std::uint32_t iteration) const;
  // The same frame instance, one iteration on.
  ContextId next_iteration(ContextId c) const;
  [[nodiscard]] const ContextEntry& operator[](ContextId c) const { return entries_[c.index()]; }
  [[nodiscard]] std::size_t size() const { return entries_.size(); }
  // c is `outer` or nested inside it.
  [[nodiscard]] bool within(ContextId c, ContextId outer) const;
  // The context enclosing c at depth d (d <= depth of c).
  [[nodiscard]] ContextId at_depth(ContextId c, std::uint32_t d) const;
  // A canonical order: by the stacks of (frame, iteration), outermost first,
  // whatever order the contexts were interned in.
  [[nodiscard]] bool before(ContextId a, ContextId b) const;
  [[nodiscard]] std::size_t bytes() const { return entries_.bytes() + index_.size() * 48; }

 private:
  struct Key {
    ContextId parent;
    FrameId frame;
    std::uint32_t iteration;
    friend bool operator==(const Key&, const Key&) = default;
  };
  struct KeyHash {
    std::size_t operator()(const Key& k) const noexcept;
  };
  mutable std::mutex mutex_;
  mutable std::unordered_map<Key, ContextId, KeyHash> index_;
  mutable AppendOnly<ContextEntry> entries_;
};

}  // namespace tfsem

template <>
struct std::hash<tfsem::Transition> {
  std::size_t operator()(const tfsem::Transition& t) const noexcept {
    return std::hash<std::uint64_t>{}(std::uint64_t{t.node.value} << 32 | t.context.value);
  }
};
