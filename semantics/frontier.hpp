// The frontier of a state: which transitions are enabled (C-ENABLED), which
// contexts exist, and how far each loop has got (C-DONE, C-BOUND). Computed
// by Semantics::frontier over any View of a state, so that the explorer can
// run the rules on its packed states without unpacking them:
//
//   struct View {
//     Holds holds(Slot s) const;                  // what InTransit holds in slot s
//     bool fired(NodeId n, ContextId c) const;    // (n, c) is in the fired records
//     template <class F> void contexts(F&& f) const;  // f(c) for the context of every
//                                                      // non-EMPTY slot and fired record
//   };
#pragma once

#include "semantics/context.hpp"

#include <algorithm>
#include <cstdint>
#include <vector>

namespace tfsem {

// A frame instance that exists in a state: frame F entered from context `parent`.
struct FrameInstance {
  ContextId parent;
  FrameId frame;
  // Its iterations in the state, in order: iteration 0, then those that have
  // not left it (C-FINISHED), which follow without a gap.
  std::vector<ContextId> iterations;
  std::uint32_t done = 0;  // C-DONE: iterations[0 .. done-1] (and those that left) are done
  [[nodiscard]] bool complete() const { return done == iterations.size(); }
};

struct Frontier {
  std::vector<Transition> enabled;       // sorted
  std::vector<ContextId> present;        // sorted: every context that exists in the state
  std::vector<bool> started;             // by index in present (C-BOUND)
  std::vector<FrameInstance> instances;  // sorted by (parent, frame)

  void clear() {
    enabled.clear();
    present.clear();
    started.clear();
    instances.clear();
  }
  [[nodiscard]] bool is_present(ContextId c) const { return std::binary_search(present.begin(), present.end(), c); }
  [[nodiscard]] bool is_started(ContextId c) const {
    const auto it = std::lower_bound(present.begin(), present.end(), c);
    return it != present.end() && *it == c && started[static_cast<std::size_t>(it - present.begin())];
  }
  [[nodiscard]] const FrameInstance* instance(ContextId parent, FrameId f) const {
    const auto it = std::lower_bound(instances.begin(), instances.end(), std::pair{parent, f}, [](const FrameInstance& i, const auto& k) {
      return std::pair{i.parent, i.frame} < k;
    });
    return it != instances.end() && it->parent == parent && it->frame == f ? &*it : nullptr;
  }
};

}  // namespace tfsem
