// C-FINISHED: a context leaves the state once no token can reach it any
// more, as TensorFlow's executor deletes an iteration's state once the
// iteration is done, and a frame's once the frame is done; the thesis's call
// instances likewise end with their Return. Written once over any View of a
// state (frontier.hpp). Included by semantics.hpp.
//
// A context c is quiet when every node recorded in c has fired there, no
// context nested in c exists, and c holds no token that a transition could
// still take: only a loop invariant, a result left for another call site's
// Return, DEAD left for a node that has fired, or DEAD on an Exit's input
// (which counts only in an instance's last iteration, C-EXIT-DEAD).
//  - A call leaves when it is quiet and every Call of its site has fired in
//    the caller: nothing can reach it, and nothing in it can fire.
//  - Iteration i >= 1 of a frame instance leaves when it is quiet, every
//    iteration from 1 to i - 1 has left, iteration i + 1 exists (so i is not
//    the last, whose DEAD tokens C-EXIT-DEAD may take), and, for i = 1, every
//    NextIteration has fired in iteration 0.
//  - A frame instance leaves with all its iterations (iteration 0, whose
//    loop invariants serve every iteration, C-ENTER-CONST, included) when
//    every Enter and every Exit of its frame has fired in its parent context
//    and each of its iterations is quiet.
// Nothing that leaves could fire again, nor hold a value of an outcome, a
// stuck transition or a violation: a state and the state without what left
// have the same behaviours, the same races, the same terminal outcomes.
#pragma once

#include <boost/container/small_vector.hpp>

#include <algorithm>
#include <vector>

namespace tfsem {

template <class View>
bool Semantics::quiet(const View& v, ContextId c) const {
  const auto& e = (*contexts_)[c];
  const auto& frame = program_->frame(e.frame);
  // Backwards: a graph lists its nodes roughly in the order they run, so the
  // last record is the likeliest not to have fired yet.
  for (auto n = frame.records.rbegin(); n != frame.records.rend(); ++n)
    if (!v.fired(*n, c)) return false;
  for (auto d : frame.slots) {
    const auto h = v.holds(Slot{d, c});
    if (h != Holds::empty && !unreachable(v, d, c, h)) return false;
  }
  bool nested = false;
  v.contexts([&](ContextId x) { nested = nested || (*contexts_)[x].parent == c; });
  return !nested;
}

template <class View>
bool Semantics::unreachable(const View& v, EdgeId d, ContextId c, Holds h) const {
  const auto& e = program_->edge(d);
  if (e.invariant) return true;  // the instance's, which leaves with iteration 0
  if (!e.dst.valid()) return true;  // an output edge out of a loop or a function: never fetched (G-FETCH)
  return rules::with_rule(program_->node(e.dst).op.kind, [&](auto r) {
    using R = decltype(r);
    // A Return takes its site's result alone: the copies for other sites stay in the call.
    if constexpr (R::kReadsCallee) return (*contexts_)[c].iteration != site_[e.dst.index()];
    // DEAD on an Exit's input counts only in its instance's last iteration
    // (C-EXIT-DEAD); DEAD left for a node that has fired stays forever.
    if (h != Holds::dead) return false;
    return R::kOncePerInstance || v.fired(e.dst, r.record_context(*contexts_, {e.dst, c}));
  });
}

template <class View, class Leave>
void Semantics::finished(const View& v, std::vector<ContextId>& work, Leave&& leave) const {
  const auto& ctx = *contexts_;
  const auto& p = *program_;
  auto present = [&](ContextId c) {
    bool found = false;
    v.contexts([&](ContextId x) { found = found || x == c; });
    return found;
  };
  auto all_fired = [&](const std::vector<NodeId>& nodes, ContextId c, auto&& keep) {
    return std::all_of(nodes.begin(), nodes.end(), [&](NodeId n) { return !keep(n) || v.fired(n, c); });
  };
  auto any = [](NodeId) { return true; };
  boost::container::small_vector<ContextId, 8> iterations;
  while (!work.empty()) {
    const auto c = work.back();
    work.pop_back();
    if (c == kRootContext || !present(c)) continue;
    const auto& e = ctx[c];
    const auto& frame = p.frame(e.frame);
    if (ctx.is_call(c)) {
      auto of_site = [&](NodeId call) { return site_[call.index()] == e.iteration && p.node(call).frame == ctx[e.parent].frame; };
      if (all_fired(frame.calls, e.parent, of_site) && quiet(v, c)) {
        leave(c);
        work.push_back(e.parent);
      }
      continue;
    }
    // Iteration 0 leaves with its frame instance alone, and every way c
    // leaves needs it quiet: both looked at before the instance's iterations.
    const bool instance = all_fired(frame.enters, e.parent, any) && all_fired(frame.exits, e.parent, any);
    if ((!instance && e.iteration == 0) || !quiet(v, c)) continue;
    // The iterations of c's frame instance in the state, in order.
    iterations.clear();
    v.contexts([&](ContextId x) {
      if (x != kRootContext && ctx[x].parent == e.parent && ctx[x].frame == e.frame) iterations.push_back(x);
    });
    std::sort(iterations.begin(), iterations.end(), [&](ContextId a, ContextId b) { return ctx[a].iteration < ctx[b].iteration; });
    iterations.erase(std::unique(iterations.begin(), iterations.end()), iterations.end());
    if (instance && std::all_of(iterations.begin(), iterations.end(), [&](ContextId i) { return i == c || quiet(v, i); })) {
      for (auto i : iterations) leave(i);
      work.push_back(e.parent);
      continue;
    }
    // Iteration i >= 1 alone: the first after iteration 0, and not the last.
    if (e.iteration == 0 || iterations.size() < 3 || iterations[1] != c || ctx[iterations[2]].iteration != e.iteration + 1) continue;
    if (e.iteration == 1 && !all_fired(frame.next_iterations, iterations[0], any)) continue;
    leave(c);
    work.push_back(iterations[2]);
  }
}

}  // namespace tfsem
