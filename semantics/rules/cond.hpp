// Conditionals (section 4; thesis section 3.2): Switch sends its data down
// one branch and DEAD down the other; Merge forwards the branch that is live.
#pragma once

#include "semantics/rules/op_rule.hpp"

namespace tfsem {

// The predicate of a Switch as a bool, or the error it is: a predicate is a
// bool scalar, and anything else is an error (V-ERROR). C-SWITCH's for a
// concrete predicate, and the executor's for any.
inline std::variant<bool, Tensor> switch_predicate(const Tensor& p) {
  if (p.is_error()) return p;
  if (p.is_dense() && p.as_dense().dtype() == DType::boolean && element_count(p.as_dense().shape) == 1)
    return std::get<Buffer<bool>>(p.as_dense().data)[0];
  return Tensor::error(p.is_term() ? ErrorKind::domain : ErrorKind::dtype_mismatch,
                       "a Switch predicate is a bool scalar, not " + p.to_string(8));
}

namespace rules {

// Switch(data, pred).
struct Switch : OpRule {
  // Its firing reads and extends the path condition (S-PATH).
  static constexpr bool kBranches = true;
  // Its data, not its predicate.
  static std::uint32_t moves(const Program&, NodeId) { return kMovesFirstInput; }

  // C-SWITCH: Switch(data, pred) puts data on output 1 when pred is true and on
  // output 0 when it is false, and DEAD on the other; an error predicate chooses
  // no branch, and goes to both (S-ERR-PROP). C-SWITCH-SYMBOLIC: a term
  // predicate is a choice: each truth value the path condition allows is a
  // successor, taken with its literal added (S-PATH); one the path condition
  // contradicts is not.
  static Successors fire(Firing& f, bool dead_control) {
    if (f.dead(dead_control)) return fire_dead(f);
    const auto data = f.input(f.node.in[0]);
    const auto p = std::get<Tensor>(f.input(f.node.in[1]));
    f.consume(f.node.in[0]);
    f.consume(f.node.in[1]);
    f.control_out(Go{});
    if (p.is_term()) {
      Successors out;
      const auto known = f.next.path.value_of(p);
      for (const bool taken : {true, false}) {
        if (known && *known != taken) continue;
        State next = f.next;
        if (!known) next.path.add({p, taken});
        take(f, next, taken, data);
        out.push_back(std::move(next));
      }
      return out;
    }
    const auto pred = switch_predicate(p);
    if (const auto* error = std::get_if<Tensor>(&pred)) {
      for (auto e : f.node.out) f.emit(f.next, e, *error);
      return f.one();
    }
    take(f, f.next, std::get<bool>(pred), data);
    return f.one();
  }
  // Data down the branch taken, DEAD down the other.
  static void take(const Firing& f, State& next, bool taken, const Content& data) {
    f.emit(next, f.node.out[taken ? 1 : 0], data);
    f.emit(next, f.node.out[taken ? 0 : 1], Dead{});
  }
};

// Merge(d_1..d_k).
struct Merge : OpRule {
  static std::uint32_t moves(const Program& p, NodeId n) {
    const auto k = p.node(n).in.size();
    return k >= 31 ? (1U << 31) - 1 : (1U << k) - 1;  // every live input it may forward
  }
  static constexpr bool kChooses = true;
  static constexpr bool kNeedsEveryInput = false;
  static constexpr bool kNeedsRecord = true;

  // Whether a Merge waits for input d in context c: a loop's Merge takes the
  // value entering the loop in iteration 0 and its NextIteration's after; a
  // function's Merge takes the argument of the Call whose site made the call
  // (C-CALL-MERGE).
  static bool waits_for(const Semantics& sem, EdgeId d, ContextId c) {
    const auto& e = sem.program().edge(d);
    if (e.call) return sem.site(e.src) == sem.contexts()[c].iteration;
    return !sem.loop_merge(e.dst) || e.back == (sem.contexts()[c].iteration > 0);
  }
  // C-MERGE: some data input is live; C-MERGE-DEAD: every one it waits for is DEAD.
  template <class View>
  static bool ready(const Semantics& sem, const View& v, Transition t) {
    bool all_dead = true;
    for (auto d : sem.program().node(t.node).in) {
      const auto h = v.holds(sem.in_slot(d, t.context));
      if (h == Holds::live) return true;
      if (h != Holds::dead && waits_for(sem, d, t.context)) all_dead = false;
    }
    return all_dead;
  }
  static Successors fire(Firing& f, bool /*dead_control*/) {
    for (auto d : f.node.in)
      if (holds(f.input(d)) == Holds::live) return fire_live(f);
    return fire_all_dead(f);
  }
  // C-MERGE: Merge forwards a live input on output 0 and its index on output 1,
  // consuming that input alone. Several live inputs are a defect of the graph
  // (C-MERGE-TWO-LIVE): each is a possible result, and the others stay.
  static Successors fire_live(Firing& f) {
    f.control_out(Go{});
    Successors out;
    for (std::size_t i = 0; i < f.node.in.size(); ++i) {
      const auto d = f.node.in[i];
      if (holds(f.input(d)) != Holds::live) continue;
      State next = f.next;
      f.consume(next, d);
      f.emit(next, f.node.out[0], f.input(d));
      if (f.node.out.size() > 1) f.emit(next, f.node.out[1], Tensor::scalar(static_cast<std::int32_t>(i)));
      out.push_back(std::move(next));
    }
    return out;
  }
  // C-MERGE-DEAD: every input the Merge waits for is DEAD: it consumes them and
  // outputs DEAD.
  static Successors fire_all_dead(Firing& f) {
    for (auto d : f.node.in)
      if (is_dead(f.input(d))) f.consume(d);
    for (auto e : f.node.out) f.emit(f.next, e, Dead{});
    f.control_out(Dead{});
    return f.one();
  }

  static std::optional<Blocker> why_blocked(const Semantics&, Transition) {
    return Blocker{{}, "no live input, and not every input it waits for is DEAD"};
  }
  // C-MERGE-TWO-LIVE: a live value left on an input of a Merge that has fired
  // (a loop invariant stays there by design, C-ENTER-CONST). An error left there
  // is a failed run's, not a defect of the graph: a Switch on an error predicate
  // sends the error down both branches (S-ERR-PROP), where TensorFlow fails the run.
  static void violations(const Semantics& sem, const State& s, Transition t, std::vector<Violation>& out) {
    const auto& p = sem.program();
    for (auto d : p.node(t.node).in) {
      if (p.edge(d).invariant || s.holds(d, t.context) != Holds::live) continue;
      if (const auto* v = std::get_if<Tensor>(&s.at(d, t.context)); v && v->is_error()) continue;
      out.push_back({Violation::Kind::merge_two_live, t, d});
    }
  }

  // Another live input would make it a relation: any input it waits for may come first.
  template <class Dep, class View>
  static void conflicts(const Dep& dep, const View& v, const Frontier& f, Transition t, std::vector<Transition>& out) {
    necessary(dep, v, f, t, out);
  }
  template <class Dep, class View>
  static void necessary(const Dep& dep, const View& v, const Frontier& f, Transition t, std::vector<Transition>& out) {
    const auto& sem = dep.semantics();
    for (auto d : sem.program().node(t.node).in)
      if (const auto s = sem.in_slot(d, t.context); v.holds(s) == Holds::empty && waits_for(sem, d, t.context))
        dep.producers(v, f, s, out);
  }
  // Every input it waits for is there, so none can come and make it a relation.
  template <class View>
  static bool eager(const Semantics& sem, const View& v, Transition t) {
    int live = 0;
    for (auto d : sem.program().node(t.node).in) {
      const auto h = v.holds(sem.in_slot(d, t.context));
      if (h == Holds::empty && waits_for(sem, d, t.context)) return false;
      live += h == Holds::live;
    }
    return live <= 1;
  }
};

}  // namespace rules
}  // namespace tfsem
