// What partial-order reduction reads of the semantics: which firings may
// change what another one does, or whether it can fire, written once over any
// View of a state (frontier.hpp), so that the explorer runs them on its packed
// rows. An operation's own part is a hook of its arm (rules/op_rule.hpp); the
// accesses to variables are handled here. Only the explorer reads this.
#pragma once

#include "semantics/semantics.hpp"

#include <atomic>
#include <memory>
#include <mutex>
#include <vector>

namespace tfsem {

class Dependence {
 public:
  explicit Dependence(const Semantics& sem);

  [[nodiscard]] const Semantics& semantics() const { return sem_; }

  // For t enabled: the transitions that, if left out of a stubborn set holding
  // t, could fire first and change what t does or whether it can.
  template <class View>
  void conflicts(const View& v, const Frontier& f, Transition t, std::vector<Transition>& out) const;
  // For t disabled: a set of transitions one of which fires in every behaviour
  // from here in which t becomes enabled (empty: t never will).
  template <class View>
  void necessary(const View& v, const Frontier& f, Transition t, std::vector<Transition>& out) const;
  // Whether t, enabled, may fire before anything else without losing a
  // behaviour: it touches no variable or one that is race_free (below), it
  // has one result, and no other firing can change what it does. Asked of a
  // transition not known to be enabled (its inputs read as the view holds
  // them), it answers without harm, so that a caller may ask it before the
  // dearer C-ENABLED.
  template <class View>
  [[nodiscard]] bool eager(const View& v, Transition t) const;
  // Whether a and b commute and neither can disable the other: their
  // accesses do not conflict, and neither delivers to the other as a Merge or
  // an Exit, nor are they one Exit's deliveries to one context.
  [[nodiscard]] bool independent(Transition a, Transition b) const;
  // Whether two accesses conflict: one variable, at least one an update, and
  // not two commuting updates (S-COMMUTE).
  [[nodiscard]] bool conflict(Access a, Access b) const {
    return a.kind != Access::Kind::none && b.kind != Access::Kind::none && a.var == b.var &&
           (a.kind == Access::Kind::update || b.kind == Access::Kind::update) &&
           !(a.kind == b.kind && commuting_[a.var.index()]);
  }
  // S-COMMUTE: whether every update of x commutes with every other one, in
  // every reachable state (dependence.cpp says when).
  [[nodiscard]] bool commuting(VarId x) const { return commuting_[x.index()]; }

  // The transitions that could fill slot s: the source of its edge in the
  // context that produces into s.
  template <class View>
  void producers(const View& v, const Frontier& f, Slot s, std::vector<Transition>& out) const;
  // t, unless it has fired.
  template <class View>
  void unfired(const View& v, Transition t, std::vector<Transition>& out) const {
    if (!v.fired(t.node, sem_.record_context(t))) out.push_back(t);
  }
  // Every transition that could still fire inside frame instance (parent,
  // frame), and the Enters that start it.
  template <class View>
  void pending_within(const View& v, const Frontier& f, ContextId parent, FrameId frame, std::vector<Transition>& out) const;
  // The transitions that create new contexts of `frame`: its Enters in every
  // context of its parent frame, its NextIterations in every iteration, and a
  // function's Calls in every context of their frames.
  template <class View>
  void creators(const View& v, const Frontier& f, FrameId frame, std::vector<Transition>& out) const;
  // What must fire for instance `inst` to get further: any transition enabled
  // in its first iteration not done (C-DONE), and the Enters that start it.
  template <class View>
  void finish(const View& v, const Frontier& f, const FrameInstance& inst, std::vector<Transition>& out) const;

  // The Merges and Exits n's data edges feed: a value for them can change what they do.
  [[nodiscard]] const std::vector<NodeId>& delivers_to(NodeId n) const { return delivers_to_[n.index()]; }
  // Whether n is an Assign-f with f deterministic and ignoring w (Write =
  // Assign-Snd): whether it overwrites depends on its input alone.
  [[nodiscard]] bool may_overwrite(NodeId n) const { return may_overwrite_[n.index()]; }
  // Whether firing n, with variable handle `handle`, value v and, if
  // `dead_input`, some DEAD input, sets VarValue(x) without looking at its
  // old value: n may overwrite, its handle is a variable, no input is DEAD
  // (C-DEAD) and v is a tensor that is not an error (S-ERR-ASSIGN); short of
  // any of them it writes nothing.
  [[nodiscard]] bool overwrites(NodeId n, const Content& handle, const Content& v, bool dead_input) const;
  // Whether n's firing has one result whatever its inputs (not a relation,
  // S-NONDET); a Merge's result count depends on its inputs (C-MERGE).
  [[nodiscard]] bool deterministic(NodeId n) const;
  // Whether a fires before b in every behaviour in which b fires, for an
  // accessor a of some variable and b of the root frame: a must precede
  // every input b needs (S-ENABLED), and a Merge needs only one of its data
  // inputs (C-MERGE). False (not known) for any other a, and in a graph
  // whose table (a bit per node and accessor) would cost more than
  // kCheapPrecedes bytes.
  [[nodiscard]] bool precedes(NodeId a, NodeId b) const { return ancestors().before(a, b); }
  static constexpr std::size_t kCheapPrecedes = std::size_t{64} << 20;
  // Whether no two accesses to x can race, in any state: every accessor of x
  // is of the root frame, and of every two that conflict or commute
  // (S-COMMUTE, a benign race), one is known to precede the other. Then an
  // access to x is never enabled beside another it could race with, and
  // firing it first loses no behaviour and no race.
  [[nodiscard]] bool race_free(VarId x) const { return ancestors().race_free[x.index()]; }

 private:
  const Semantics& sem_;
  const Program& program_;
  std::vector<std::vector<NodeId>> accessors_;     // by variable: its Read, Assign-f and dereferencing nodes
  std::vector<std::vector<FrameId>> touching_;     // by variable: the frames holding an accessor, and those whose
                                                   // contexts may enclose theirs
  std::vector<std::vector<FrameId>> reading_;      // by variable: the same for its readers alone
  std::vector<bool> commuting_;                    // by variable: its updates commute (S-COMMUTE)
  std::vector<std::vector<NodeId>> delivers_to_;   // by node: the Merges and Exits its data edges feed
  std::vector<bool> may_overwrite_;                // by node
  std::vector<bool> once_per_instance_;            // by node: an Exit (C-ONCE per frame instance)
  bool loops_ = false;                             // the program has loop frames
  // Row b, bit column[a]: accessor a precedes b; and race_free by variable.
  // Built on first use, so that large graphs that never ask pay nothing; no
  // rows (nothing known to precede) where they would cost more than
  // kCheapPrecedes bytes.
  static constexpr std::uint32_t kNoColumn = UINT32_MAX;
  struct Ancestors {
    std::once_flag once;
    std::atomic<bool> built{false};  // built: no need to go through `once`
    std::vector<std::uint32_t> column;  // by node: its column, kNoColumn for a node that accesses no variable
    std::size_t words = 0;              // per row
    std::vector<std::uint64_t> rows;    // by node, `words` each
    std::vector<bool> race_free;        // by variable
    [[nodiscard]] bool before(NodeId a, NodeId b) const {
      if (column.empty()) return false;  // no table
      const auto c = column[a.index()];
      return c != kNoColumn && (rows[b.index() * words + c / 64] >> (c % 64) & 1U) != 0;
    }
  };
  std::unique_ptr<Ancestors> ancestors_ = std::make_unique<Ancestors>();
  [[nodiscard]] const Ancestors& ancestors() const {
    if (!ancestors_->built.load(std::memory_order_acquire)) build_ancestors();
    return *ancestors_;
  }
  void build_ancestors() const;
  void build_race_free() const;  // Ancestors::race_free, from the rows (while building them)
};

template <class View>
void Dependence::producers(const View& v, const Frontier& f, Slot s, std::vector<Transition>& out) const {
  const auto& e = program_.edge(s.edge);
  if (e.is_input()) return;  // never refilled
  rules::with_rule(program_.node(e.src).op.kind, [&](auto r) { r.producers(*this, v, f, e, s, out); });
}

template <class View>
void Dependence::pending_within(const View& v, const Frontier& f, ContextId parent, FrameId frame,
                                std::vector<Transition>& out) const {
  const auto& ctx = sem_.contexts();
  for (auto e : program_.frame(frame).enters)
    if (!v.fired(e, parent)) out.push_back({e, parent});
  const auto depth = ctx[parent].depth + 1;
  for (auto c : f.present) {
    if (ctx[c].depth < depth) continue;
    const auto top = ctx.at_depth(c, depth);
    if (ctx[top].parent != parent || ctx[top].frame != frame) continue;
    for (auto n : program_.frame(ctx[c].frame).nodes) unfired(v, Transition{n, c}, out);
  }
}

template <class View>
void Dependence::creators(const View& v, const Frontier& f, FrameId frame, std::vector<Transition>& out) const {
  const auto& ctx = sem_.contexts();
  const auto& fr = program_.frame(frame);
  for (auto c : f.present) {
    for (auto call : fr.calls)
      if (ctx[c].frame == program_.node(call).frame && !v.fired(call, c)) out.push_back({call, c});
    if (ctx[c].frame == fr.parent)
      for (auto e : fr.enters)
        if (!v.fired(e, c)) out.push_back({e, c});
    if (ctx[c].frame == frame)
      for (auto n : fr.next_iterations)
        if (!v.fired(n, c)) out.push_back({n, c});
  }
}

template <class View>
void Dependence::finish(const View& v, const Frontier& f, const FrameInstance& inst, std::vector<Transition>& out) const {
  if (inst.done < inst.iterations.size()) {
    const auto d = inst.iterations[inst.done];
    for (auto u : f.enabled)
      if (sem_.contexts().within(u.context, d)) return out.push_back(u);
  }
  for (auto e : program_.frame(inst.frame).enters)
    if (!v.fired(e, inst.parent)) out.push_back({e, inst.parent});
}

template <class View>
void Dependence::conflicts(const View& v, const Frontier& f, Transition t, std::vector<Transition>& out) const {
  const auto& ctx = sem_.contexts();
  // Two accesses to one variable, one an update, do not commute, unless both
  // are commuting updates (S-COMMUTE); accessors in contexts that do not exist
  // yet come from the contexts' creators. An accessor of the root frame that t
  // precedes (a reader downstream of t's update, an update downstream of its
  // read) cannot fire while t has not: no firing outside a set holding t can
  // reach it, so it need not join.
  if (const auto a = sem_.access(t.node); a.kind != Access::Kind::none) {
    const bool root = t.context == kRootContext && program_.node(t.node).frame.index() == 0;
    for (auto u : accessors_[a.var.index()]) {
      if (!conflict(a, sem_.access(u))) continue;
      const auto frame = program_.node(u).frame;
      if (root && frame.index() == 0 && precedes(t.node, u)) continue;
      if (!loops_) {  // every context is the root
        if (u != t.node && !v.fired(u, kRootContext)) out.push_back({u, kRootContext});
        continue;
      }
      for (auto c : f.present)
        if (ctx[c].frame == frame && Transition{u, c} != t && !v.fired(u, c)) out.push_back({u, c});
    }
    const bool commutes = a.kind == Access::Kind::update && commuting_[a.var.index()];
    for (auto frame : (commutes ? reading_ : touching_)[a.var.index()]) creators(v, f, frame, out);
  }
  rules::with_rule(program_.node(t.node).op.kind, [&](auto r) { r.conflicts(*this, v, f, t, out); });
  // A value for a Merge or an Exit changes what it does.
  if (delivers_to_[t.node.index()].empty()) return;
  const auto oc = sem_.out_context(t.node, t.context);
  for (auto dst : delivers_to_[t.node.index()]) unfired(v, Transition{dst, oc}, out);
}

template <class View>
void Dependence::necessary(const View& v, const Frontier& f, Transition t, std::vector<Transition>& out) const {
  const auto& ctx = sem_.contexts();
  if (v.fired(t.node, sem_.record_context(t))) return;
  // C-BOUND: the outermost enclosing iteration not started yet.
  if (!f.is_started(t.context)) {
    for (std::uint32_t depth = 1; depth <= ctx[t.context].depth; ++depth) {
      const auto c = ctx.at_depth(t.context, depth);
      if (f.is_started(c)) continue;
      if (const auto* inst = f.instance(ctx[c].parent, ctx[c].frame)) finish(v, f, *inst, out);
      return;
    }
    return;
  }
  for (auto d : program_.node(t.node).control_in)
    if (const auto s = sem_.in_slot(d, t.context); v.holds(s) == Holds::empty) return producers(v, f, s, out);
  rules::with_rule(program_.node(t.node).op.kind, [&](auto r) { r.necessary(*this, v, f, t, out); });
}

template <class View>
bool Dependence::eager(const View& v, Transition t) const {
  if (const auto a = sem_.access(t.node); (a.kind != Access::Kind::none && !race_free(a.var)) || !deterministic(t.node)) return false;
  return rules::with_rule(program_.node(t.node).op.kind, [&](auto r) { return r.eager(sem_, v, t); });
}

}  // namespace tfsem
