// The rules that decide which transitions are enabled (C-ENABLED, C-BOUND,
// C-DONE, C-EXIT-DEAD), written once over any View of a state (frontier.hpp),
// and the contexts of a transition's tokens and records. Each operation's own
// part is an arm of the table in rules/. Included by semantics.hpp.
#pragma once

#include "semantics/rules/table.hpp"

#include <algorithm>
#include <stdexcept>
#include <tuple>

namespace tfsem {

inline ContextId Semantics::out_context(NodeId n, ContextId c) const {
  return rules::with_rule(program_->node(n).op.kind, [&](auto r) { return r.out_context(*this, n, c); });
}

inline ContextId Semantics::record_context(Transition t) const {
  return rules::with_rule(program_->node(t.node).op.kind, [&](auto r) { return r.record_context(*contexts_, t); });
}

// C-ENABLED, for one transition, everything but C-BOUND: t has not fired
// (C-ONCE), every incoming control edge holds GO or DEAD (S-CTRL-1), and its
// data inputs hold what its rule needs.
template <class View>
bool Semantics::locally_enabled(const View& v, Transition t) const {
  const auto& node = program_->node(t.node);
  if (needs_record_[t.node.index()] && v.fired(t.node, record_context(t))) return false;
  for (auto d : node.control_in)
    if (v.holds(in_slot(d, t.context)) == Holds::empty) return false;
  return rules::with_rule(node.op.kind, [&](auto r) { return r.ready(*this, v, t); });
}

template <class View>
void Semantics::frontier(const View& v, Frontier& out) const {
  out.clear();
  const auto& p = *program_;
  const auto& ctx = *contexts_;
  out.present.push_back(kRootContext);
  if (p.frames().size() > 1) {
    v.contexts([&](ContextId c) { out.present.push_back(c); });
    std::sort(out.present.begin(), out.present.end());
    out.present.erase(std::unique(out.present.begin(), out.present.end()), out.present.end());
    // A context exists when anything is in it or nested in it: each one's
    // ancestors up to the first that is present (so a stack of n contexts
    // costs n, not n^2).
    const auto held = out.present.size();
    auto known = [&](ContextId a) {  // present, or an ancestor already added
      const auto first = out.present.begin();
      return std::binary_search(first, first + static_cast<std::ptrdiff_t>(held), a) ||
             std::find(first + static_cast<std::ptrdiff_t>(held), out.present.end(), a) != out.present.end();
    };
    for (std::size_t i = 0; i < held; ++i)
      for (auto a = out.present[i]; a != kRootContext;) {
        a = ctx[a].parent;
        if (known(a)) break;
        out.present.push_back(a);
      }
    if (out.present.size() > held) {
      std::sort(out.present.begin(), out.present.end());
      out.present.erase(std::unique(out.present.begin(), out.present.end()), out.present.end());
    }
    // Group the loop contexts into frame instances, each iteration in order;
    // each call is an instance of its own.
    std::vector<std::pair<std::tuple<ContextId, FrameId, std::uint32_t>, ContextId>> loops;
    for (std::size_t i = 1; i < out.present.size(); ++i) {
      const auto& e = ctx[out.present[i]];
      loops.push_back({{e.parent, e.frame, e.iteration}, out.present[i]});
    }
    std::sort(loops.begin(), loops.end());
    for (const auto& [key, c] : loops) {
      const auto& [parent, frame, iteration] = key;
      const bool call = p.frame(frame).kind == Frame::Kind::function;
      if (call || out.instances.empty() || out.instances.back().parent != parent || out.instances.back().frame != frame)
        out.instances.push_back({parent, frame, {}, 0});
      // Iteration 0 stays as long as its instance (C-FINISHED): the later
      // iterations that left are a gap after it.
      if (!call && out.instances.back().iterations.empty() && iteration != 0)
        throw std::logic_error("frontier: a frame instance without its iteration 0");
      out.instances.back().iterations.push_back(c);
    }
  }
  out.started.assign(out.present.size(), false);
  visit(v, kRootContext, true, out);
  std::sort(out.enabled.begin(), out.enabled.end());
}

// Appends the enabled transitions in context c and in every context nested in
// it, given whether c is started (C-BOUND).
template <class View>
void Semantics::visit(const View& v, ContextId c, bool started, Frontier& out) const {
  const auto& p = *program_;
  const auto& ctx = *contexts_;
  const auto index = static_cast<std::size_t>(std::lower_bound(out.present.begin(), out.present.end(), c) - out.present.begin());
  out.started[index] = started;
  // The frame instances entered from c, each iteration in order.
  auto lo = std::lower_bound(out.instances.begin(), out.instances.end(), c,
                             [](const FrameInstance& i, ContextId k) { return i.parent < k; });
  for (; lo != out.instances.end() && lo->parent == c; ++lo) {
    auto& inst = *lo;
    const auto& frame = p.frame(inst.frame);
    if (frame.kind == Frame::Kind::function) {  // a call: no bound on calls in flight
      visit(v, inst.iterations[0], started, out);
      continue;
    }
    const bool entered = std::all_of(frame.enters.begin(), frame.enters.end(), [&](NodeId e) { return v.fired(e, c); });
    // Iterations before inst.iterations[done] are done; those that left the
    // state (C-FINISHED) were done, and are not in inst.iterations.
    std::uint32_t done = 0;
    for (std::uint32_t j = 0; j < inst.iterations.size(); ++j) {
      // C-BOUND: "at most parallel_iterations iterations of a frame are in
      // flight": those before the first one not done plus P.
      const bool started_j =
          started && ctx[inst.iterations[j]].iteration < ctx[inst.iterations[done]].iteration + frame.parallel_iterations;
      const auto had = out.enabled.size();
      visit(v, inst.iterations[j], started_j, out);
      const bool busy = out.enabled.size() > had;
      // C-DONE: iteration j is done when j - 1 is (for j = 0: every Enter has
      // fired) and nothing in it, or nested in it, is enabled.
      if (j == done && !busy && (j > 0 || entered)) done = j + 1;
    }
    inst.done = done;
    // C-EXIT-DEAD: "dead Exits count only in the final iteration", once the frame instance is complete.
    if (started && inst.complete())
      for (auto x : frame.exits)
        if (!v.fired(x, c) && rules::Exit::input_dead(*this, v, x, inst.iterations.back())) out.enabled.push_back({x, inst.iterations.back()});
  }
  if (!started) return;
  for (auto n : p.frame(ctx[c].frame).nodes)
    if (locally_enabled(v, Transition{n, c})) out.enabled.push_back({n, c});
}

}  // namespace tfsem
