// Execution contexts (paper section 4; thesis section 3.2). "Each node fires
// at most once in each execution context, where an execution context
// identifies an iteration of each (possibly nested) loop that contains the
// node." A context is the stack of (frame, iteration) pairs from the outermost
// loop in; the root context is the empty stack. With recursion (thesis section
// 5) the stack also holds (function, call site) pairs: the thesis's tag, a list
// of call sites, is the stack's function entries. Contexts are interned, so a
// ContextId names one and states hold contexts as small integers. The table
// only grows, and interning is invisible to the rules: it is thread-safe, and
// a context's entry can be read without a lock.
#pragma once

#include "support/append_only.hpp"
#include "semantics/ids.hpp"

#include <compare>
#include <cstdint>
#include <mutex>
#include <vector>

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
  std::uint32_t iteration = 0;  // in a loop frame; in a function frame, the call site
  std::uint32_t depth = 0;      // frames on the stack
  std::uint32_t calls = 0;      // function frames on the stack: the call depth
  ContextId first;              // iteration 0 of the same loop frame instance (a call: itself)
  ContextId previous;           // iteration - 1 of it (invalid for iteration 0 and calls)
  // iteration + 1 of it, once interned (Contexts::next_iteration reads it
  // without the lock: written and read through std::atomic_ref).
  std::uint32_t next = UINT32_MAX;
};

// How far contexts may go in a search or a walk: a loop's iteration
// max_iterations, or a call max_depth + 1 deep, is beyond them.
struct Bounds {
  std::uint32_t max_iterations = 100;
  std::uint32_t max_depth = 100;
};

class Contexts {
 public:
  Contexts();
  Contexts(const Contexts&) = delete;
  Contexts& operator=(const Contexts&) = delete;

  // Iteration `iteration` of loop frame f entered from `parent` (interned).
  ContextId child(ContextId parent, FrameId f, std::uint32_t iteration) const { return intern(parent, f, iteration, false); }
  // The call to function frame f made at `site` from `parent` (interned).
  ContextId call(ContextId parent, FrameId f, std::uint32_t site) const { return intern(parent, f, site, true); }
  // The same frame instance, one iteration on.
  ContextId next_iteration(ContextId c) const;
  [[nodiscard]] const ContextEntry& operator[](ContextId c) const { return entries_[c.index()]; }
  [[nodiscard]] std::size_t size() const { return entries_.size(); }
  // Whether c's innermost entry is a call (its frame a function's), not a loop iteration.
  [[nodiscard]] bool is_call(ContextId c) const {
    const auto& e = (*this)[c];
    return e.depth > 0 && e.calls > (*this)[e.parent].calls;
  }
  // C-DEPTH: whether c's innermost entry goes past the bounds.
  [[nodiscard]] bool beyond(ContextId c, const Bounds& b) const {
    const auto& e = (*this)[c];
    return e.depth > 0 && (is_call(c) ? e.calls > b.max_depth : e.iteration >= b.max_iterations);
  }
  // c is `outer` or nested inside it.
  [[nodiscard]] bool within(ContextId c, ContextId outer) const;
  // The context enclosing c at depth d (d <= depth of c).
  [[nodiscard]] ContextId at_depth(ContextId c, std::uint32_t d) const;
  // A canonical order: by the stacks of (frame, iteration), outermost first,
  // whatever order the contexts were interned in.
  [[nodiscard]] bool before(ContextId a, ContextId b) const;
  [[nodiscard]] std::size_t bytes() const;

 private:
  ContextId intern(ContextId parent, FrameId f, std::uint32_t iteration, bool call) const;
  // The interned context (parent, f, iteration), if there is one; and adding
  // one to the index. Callers hold mutex_.
  [[nodiscard]] ContextId find(ContextId parent, FrameId f, std::uint32_t iteration) const;
  void index(ContextId c) const;
  mutable std::mutex mutex_;
  // An open-addressing table of the ids of the contexts other than the root,
  // keyed by their entries' (parent, frame, iteration); 0 (the root's id) is a free slot.
  mutable std::vector<std::uint32_t> index_ = std::vector<std::uint32_t>(64, 0);
  mutable AppendOnly<ContextEntry> entries_;
};

}  // namespace tfsem

template <>
struct std::hash<tfsem::Transition> {
  std::size_t operator()(const tfsem::Transition& t) const noexcept {
    return std::hash<std::uint64_t>{}(std::uint64_t{t.node.value} << 32 | t.context.value);
  }
};
