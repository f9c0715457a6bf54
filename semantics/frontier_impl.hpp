// The rules that decide which transitions are enabled (C-ENABLED, C-BOUND,
// C-DONE, C-EXIT-DEAD), and the dependency data read by partial-order
// reduction, written once over any View of a state (frontier.hpp). Included
// by semantics.hpp.
#pragma once

#include <algorithm>
#include <stdexcept>
#include <tuple>

namespace tfsem {

// C-ENABLED, for one transition, everything but C-BOUND: t has not fired
// (C-ONCE) and its inputs hold what its rule needs.
template <class View>
bool Semantics::locally_enabled(const View& v, Transition t) const {
  const auto& node = program_->node(t.node);
  if (needs_record_[t.node.index()] && v.fired(t.node, record_context(t))) return false;
  // S-CTRL-1: every incoming control edge holds GO (or, C-DEAD, DEAD).
  for (auto d : node.control_in)
    if (v.holds(in_slot(d, t.context)) == Holds::empty) return false;
  switch (node.op.kind) {
    case OpKind::merge: {
      // C-MERGE: some data input is live; C-MERGE-DEAD: every expected one is DEAD.
      bool all_dead = true;
      for (auto d : node.in) {
        const auto h = v.holds(in_slot(d, t.context));
        if (h == Holds::live) return true;
        if (h != Holds::dead && expected(v, d, t.context)) all_dead = false;
      }
      return all_dead;
    }
    case OpKind::exit:
      // C-EXIT: a live value and no DEAD control input; a dead one waits for C-EXIT-DEAD.
      return v.holds(in_slot(node.in[0], t.context)) == Holds::live && !exit_input_dead(v, t.node, t.context);
    case OpKind::return_:
      // C-RETURN: the call's result; a DEAD control input (the call was not made) needs none.
      for (auto d : node.control_in)
        if (v.holds(in_slot(d, t.context)) == Holds::dead) return true;
      return v.holds(in_slot(node.in[0], t.context)) != Holds::empty;
    default:
      // S-ENABLED: every incoming edge holds its contents.
      for (auto d : node.in)
        if (v.holds(in_slot(d, t.context)) == Holds::empty) return false;
      return true;
  }
}

// Exit x's input in context c is dead: everything is there, and its data or a
// control input is DEAD.
template <class View>
bool Semantics::exit_input_dead(const View& v, NodeId x, ContextId c) const {
  const auto& node = program_->node(x);
  const auto data = v.holds(in_slot(node.in[0], c));
  if (data == Holds::empty) return false;
  bool dead = data == Holds::dead;
  for (auto d : node.control_in) {
    const auto h = v.holds(in_slot(d, c));
    if (h == Holds::empty) return false;
    dead = dead || h == Holds::dead;
  }
  return dead;
}

// Whether a Merge waits for input d in context c: a loop's Merge takes the
// value entering the loop in iteration 0 and its NextIteration's after; a
// function's Merge takes the argument of the Call whose site made the call.
template <class View>
bool Semantics::expected(const View&, EdgeId d, ContextId c) const {
  const auto& e = program_->edge(d);
  if (e.call) return site_[e.src.index()] == (*contexts_)[c].iteration;
  return !loop_merge_[e.dst.index()] || e.back == ((*contexts_)[c].iteration > 0);
}

template <class View>
void Semantics::frontier(const View& v, Frontier& out) const {
  out.clear();
  const auto& p = *program_;
  const auto& ctx = *contexts_;
  out.present.push_back(kRootContext);
  if (p.frames().size() > 1) {
    v.contexts([&](ContextId c) { out.present.push_back(c); });
    // A context exists when anything is in it or nested in it.
    for (std::size_t i = 0; i < out.present.size(); ++i)
      if (const auto c = out.present[i]; c != kRootContext) out.present.push_back(ctx[c].parent);
    std::sort(out.present.begin(), out.present.end());
    out.present.erase(std::unique(out.present.begin(), out.present.end()), out.present.end());
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
      // Iteration i + 1 is created from iteration i, which keeps its fired records.
      if (!call && out.instances.back().iterations.size() != iteration)
        throw std::logic_error("frontier: a frame instance with a missing iteration");
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
    std::uint32_t done = 0;
    for (std::uint32_t j = 0; j < inst.iterations.size(); ++j) {
      // C-BOUND: "at most parallel_iterations iterations of a frame are in flight".
      const bool started_j = started && j < done + frame.parallel_iterations;
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
        if (!v.fired(x, c) && exit_input_dead(v, x, inst.iterations.back())) out.enabled.push_back({x, inst.iterations.back()});
  }
  if (!started) return;
  for (auto n : p.frame(ctx[c].frame).nodes)
    if (locally_enabled(v, Transition{n, c})) out.enabled.push_back({n, c});
}

// ---- Dependency data for partial-order reduction. ----

// The transitions that could fill slot s: the source of its edge in the
// context that produces into s.
template <class View>
void Semantics::producers(const View& v, const Frontier& f, Slot s, std::vector<Transition>& out) const {
  const auto& e = program_->edge(s.edge);
  if (e.is_input()) return;  // never refilled
  const auto& entry = (*contexts_)[s.context];
  Transition t{e.src, s.context};
  switch (program_->node(e.src).op.kind) {
    case OpKind::enter:  // fills iteration 0 only
      if (entry.iteration != 0) return;
      t.context = entry.parent;
      break;
    case OpKind::next_iteration:  // fills iteration i from iteration i - 1
      if (entry.iteration == 0) return;
      t.context = entry.previous;
      break;
    case OpKind::call:  // fills the call its site makes (its control edges stay in the caller)
      if (e.kind == EdgeKind::control) break;
      if (entry.iteration != site_[e.src.index()]) return;
      t.context = entry.parent;
      break;
    case OpKind::exit:  // some iteration of the instance below s's context delivers
      pending_within(v, f, s.context, program_->node(e.src).frame, out);
      return;
    default: break;
  }
  if (!v.fired(t.node, record_context(t))) out.push_back(t);
}

// Every transition that could still fire inside frame instance (parent,
// frame), and the Enters that start it.
template <class View>
void Semantics::pending_within(const View& v, const Frontier& f, ContextId parent, FrameId frame,
                               std::vector<Transition>& out) const {
  const auto& ctx = *contexts_;
  for (auto e : program_->frame(frame).enters)
    if (!v.fired(e, parent)) out.push_back({e, parent});
  const auto depth = ctx[parent].depth + 1;
  for (auto c : f.present) {
    if (ctx[c].depth < depth) continue;
    const auto top = ctx.at_depth(c, depth);
    if (ctx[top].parent != parent || ctx[top].frame != frame) continue;
    for (auto n : program_->frame(ctx[c].frame).nodes)
      if (const Transition t{n, c}; !v.fired(n, record_context(t))) out.push_back(t);
  }
}

// The transitions that create new contexts of `frame`: its Enters in every
// context of its parent frame, its NextIterations in every iteration, and a
// function's Calls in every context of their frames.
template <class View>
void Semantics::creators(const View& v, const Frontier& f, FrameId frame, std::vector<Transition>& out) const {
  const auto& ctx = *contexts_;
  const auto& fr = program_->frame(frame);
  for (auto c : f.present) {
    for (auto call : fr.calls)
      if (ctx[c].frame == program_->node(call).frame && !v.fired(call, c)) out.push_back({call, c});
    if (ctx[c].frame == fr.parent)
      for (auto e : fr.enters)
        if (!v.fired(e, c)) out.push_back({e, c});
    if (ctx[c].frame == frame)
      for (auto n : fr.next_iterations)
        if (!v.fired(n, c)) out.push_back({n, c});
  }
}

// For t enabled: the transitions that, if left out of a stubborn set holding
// t, could fire first and change what t does or whether it can.
template <class View>
void Semantics::conflicts(const View& v, const Frontier& f, Transition t, std::vector<Transition>& out) const {
  const auto& p = *program_;
  const auto& ctx = *contexts_;
  const auto& node = p.node(t.node);
  // Two accesses to one variable, one an update, do not commute; accessors in
  // contexts that do not exist yet come from the contexts' creators.
  if (const auto a = access_[t.node.index()]; a.kind != Access::Kind::none) {
    const bool update = a.kind == Access::Kind::update;
    for (auto u : accessors_[a.var.index()]) {
      if (!update && access_[u.index()].kind != Access::Kind::update) continue;
      if (!loops_) {  // every context is the root
        if (u != t.node && !v.fired(u, kRootContext)) out.push_back({u, kRootContext});
        continue;
      }
      const auto frame = p.node(u).frame;
      for (auto c : f.present)
        if (ctx[c].frame == frame && Transition{u, c} != t && !v.fired(u, c)) out.push_back({u, c});
    }
    for (auto frame : touching_[a.var.index()]) creators(v, f, frame, out);
  }
  switch (node.op.kind) {
    case OpKind::merge:  // another live input would make it a relation (C-MERGE)
      for (auto d : node.in)
        if (const auto s = in_slot(d, t.context); v.holds(s) == Holds::empty && expected(v, d, t.context)) producers(v, f, s, out);
      break;
    case OpKind::exit: {  // one delivery per frame instance (C-ONCE)
      const auto& e = ctx[t.context];
      if (const auto* inst = f.instance(e.parent, e.frame))
        for (auto c : inst->iterations)
          if (c != t.context) out.push_back({t.node, c});
      creators(v, f, e.frame, out);
      break;
    }
    default: break;
  }
  // A value for a Merge or an Exit changes what it does.
  if (delivers_to_[t.node.index()].empty()) return;
  const auto oc = out_context(t.node, t.context);
  for (auto dst : delivers_to_[t.node.index()])
    if (const Transition consumer{dst, oc}; !v.fired(dst, record_context(consumer))) out.push_back(consumer);
}

// For t disabled: a set of transitions one of which fires in every behaviour
// from here in which t becomes enabled (empty: t never will).
template <class View>
void Semantics::necessary(const View& v, const Frontier& f, Transition t, std::vector<Transition>& out) const {
  const auto& p = *program_;
  const auto& ctx = *contexts_;
  const auto& node = p.node(t.node);
  if (v.fired(t.node, record_context(t))) return;
  // Iteration `d` of instance `inst` must finish first: any transition enabled in it.
  auto finish = [&](const FrameInstance& inst) {
    if (inst.done < inst.iterations.size()) {
      const auto d = inst.iterations[inst.done];
      for (auto u : f.enabled)
        if (ctx.within(u.context, d)) return out.push_back(u);
    }
    for (auto e : p.frame(inst.frame).enters)
      if (!v.fired(e, inst.parent)) out.push_back({e, inst.parent});
  };
  // C-BOUND: the outermost enclosing iteration not started yet.
  if (!f.is_started(t.context)) {
    for (std::uint32_t depth = 1; depth <= ctx[t.context].depth; ++depth) {
      const auto c = ctx.at_depth(t.context, depth);
      if (f.is_started(c)) continue;
      if (const auto* inst = f.instance(ctx[c].parent, ctx[c].frame)) finish(*inst);
      return;
    }
    return;
  }
  for (auto d : node.control_in)
    if (const auto s = in_slot(d, t.context); v.holds(s) == Holds::empty) return producers(v, f, s, out);
  switch (node.op.kind) {
    case OpKind::merge:  // any expected input may come first
      for (auto d : node.in)
        if (const auto s = in_slot(d, t.context); v.holds(s) == Holds::empty && expected(v, d, t.context)) producers(v, f, s, out);
      return;
    case OpKind::exit: {
      const auto s = in_slot(node.in[0], t.context);
      if (v.holds(s) == Holds::empty) return producers(v, f, s, out);
      // A dead Exit delivers once its frame instance completes, from its last iteration.
      const auto& e = ctx[t.context];
      const auto* inst = f.instance(e.parent, e.frame);
      if (inst != nullptr && inst->iterations.back() == t.context) finish(*inst);
      return;
    }
    default:
      for (auto d : node.in)
        if (const auto s = in_slot(d, t.context); v.holds(s) == Holds::empty) return producers(v, f, s, out);
      return;
  }
}

template <class View>
bool Semantics::eager(const View& v, Transition t) const {
  const auto& node = program_->node(t.node);
  if (access_[t.node.index()].kind != Access::Kind::none || !deterministic(t.node)) return false;
  switch (node.op.kind) {
    case OpKind::merge: {  // every input it waits for is there, so none can come and make it a relation
      int live = 0;
      for (auto d : node.in) {
        const auto h = v.holds(in_slot(d, t.context));
        if (h == Holds::empty && expected(v, d, t.context)) return false;
        live += h == Holds::live;
      }
      return live <= 1;
    }
    case OpKind::exit:  // a live Exit competes with its other iterations; a dead one comes last
      return exit_input_dead(v, t.node, t.context);
    default: return true;
  }
}

}  // namespace tfsem
