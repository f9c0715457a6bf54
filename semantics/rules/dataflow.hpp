// The section 3 operations (section 3.1.1): functions f, Var(x), Read,
// Assign-f, and RefIdentity, which passes a variable handle on.
#pragma once

#include "semantics/rules/op_rule.hpp"

#include <bit>

namespace tfsem::rules {

// S-FN-2, S-FN-3 once f's arguments are known: f consumes its inputs and puts
// the j-th result of f(args) on its j-th outgoing edge; S-NONDET: one
// successor per result of a relation.
inline Successors apply_function(Firing& f, std::span<const Tensor> args) {
  // S-FN-2: InTransit(d_i) = EMPTY in s'.
  for (auto d : f.node.in) f.consume(d);
  f.control_out(Go{});
  // S-FN-3: InTransit(e_j) is the j-th result of f(v_1..v_k) in s'.
  const auto& fn = *f.node.op.fn;
  if (!fn.relation) {  // one result: s' itself
    auto tuple = f.sem.evaluate(f.t.node, args);
    for (std::size_t j = 0; j < f.node.out.size(); ++j) f.emit(f.next, f.node.out[j], std::move(tuple[j]));
    return f.one();
  }
  Successors out;
  for (auto& tuple : apply(fn, args, f.node.attrs(), f.sem.options().terms)) {
    State next = f.next;
    for (std::size_t j = 0; j < f.node.out.size(); ++j) f.emit(next, f.node.out[j], std::move(tuple[j]));
    out.push_back(std::move(next));
  }
  return out;
}

// A function f: Tensors^k -> Tensors^l.
struct Function : OpRule {
  // S-DEREF: a function with a variable input edge reads the variable as a Read does.
  static Access access(const Program& p, NodeId n) {
    if (const auto x = p.variable_of(n)) return {Access::Kind::read, *x};
    return {};
  }
  // A forwarding function (Identity, Copy, Snd) with one inspected argument
  // moves every argument: the one it returns, and those it ignores.
  static std::uint32_t moves(const Program& p, NodeId n) {
    const auto& node = p.node(n);
    const auto& fn = *node.op.fn;
    const auto k = node.in.size();
    if (!fn.forwards || fn.total || p.variable_of(n) || k >= 31) return 0;
    const auto every = (1U << k) - 1;
    return std::popcount(every & ~fn.ignored_args) == 1 ? every : 0;
  }
  // S-EVAL: a function (one result tuple, not a relation) that reads no
  // variable is evaluated alone, unless it moves its arguments (S-MOVE).
  static bool evaluates(const Program& p, NodeId n) {
    return !p.node(n).op.fn->relation && !p.variable_of(n) && moves(p, n) == 0;
  }
  static Successors fire(Firing& f, bool dead_control) {
    if (f.dead(dead_control)) return fire_dead(f);
    boost::container::small_vector<Tensor, 4> args;
    if (!f.sem.program().variable_of(f.t.node)) {
      // S-FN-1: InTransit(d_i) = v_i for some tensor v_i in s.
      for (auto d : f.node.in) args.push_back(std::get<Tensor>(f.input(d)));
      return apply_function(f, {args.data(), args.size()});
    }
    // S-DEREF (TensorFlow 1's references, --tf1-refs): a function whose input d
    // is a variable edge holding x takes VarValue(x) in s as that argument, when
    // it fires: the read and f are one step, so f sees the value the variable
    // holds at that moment, not a snapshot a Read took earlier. An error on the
    // variable edge (C-SWITCH) is the argument instead.
    for (auto d : f.node.in) {
      const auto& v = f.input(d);
      if (const auto* x = std::get_if<VarId>(&v)) args.push_back(f.s.var_value[x->index()]);
      else args.push_back(std::get<Tensor>(v));
    }
    return apply_function(f, {args.data(), args.size()});
  }
};

// Var(x): no inputs, the variable handle out.
struct VarOp : OpRule {
  // S-VAR: "InTransit(e) = x in s', where e is n's outgoing variable edge".
  static Successors fire(Firing& f, bool dead_control) {
    if (f.dead(dead_control)) return fire_dead(f);
    f.emit(f.next, f.node.out[0], f.node.op.var);
    f.control_out(Go{});
    return f.one();
  }
};

// Read: a variable handle in, the variable's value out.
struct Read : OpRule {
  static Access access(const Program& p, NodeId n) { return {Access::Kind::read, *p.variable_of(n)}; }
  static std::uint32_t moves(const Program&, NodeId) { return kMovesVar; }
  // S-READ-1..3: Read consumes x and outputs VarValue(x). An error on the
  // variable edge (an error predicate's, C-SWITCH) propagates instead.
  static Successors fire(Firing& f, bool dead_control) {
    if (f.dead(dead_control)) return fire_dead(f);
    const auto handle = f.input(f.node.in[0]);  // S-READ-1: InTransit(d) = x in s
    f.consume(f.node.in[0]);                     // S-READ-2: InTransit(d) = EMPTY in s'
    // S-READ-3: InTransit(e) = VarValue(x) in s'.
    if (const auto* x = std::get_if<VarId>(&handle)) f.emit(f.next, f.node.out[0], f.s.var_value[x->index()]);
    else f.emit(f.next, f.node.out[0], handle);
    f.control_out(Go{});
    return f.one();
  }
};

// Assign-f: a variable handle and a tensor in, no value out (Write = Assign-Snd).
struct Assign : OpRule {
  static Access access(const Program& p, NodeId n) { return {Access::Kind::update, *p.variable_of(n)}; }
  // f deterministic and ignoring the old value w: whether it overwrites
  // depends on its input alone.
  static bool may_overwrite(const Op& op) { return (op.fn->ignored_args & 1U) != 0 && !op.fn->nondeterministic; }
  // S-ASSIGN-1..6: Assign-f consumes x and v, and VarValue(x) = f(w, v) with w =
  // VarValue(x) in s, atomically; every other VarValue(y) is unchanged.
  static Successors fire(Firing& f, bool dead_control) {
    if (f.dead(dead_control)) return fire_dead(f);
    // S-ASSIGN-1, S-ASSIGN-3: InTransit(d_1) = x and InTransit(d_2) = v in s.
    const auto handle = f.input(f.node.in[0]);
    const auto v = std::get<Tensor>(f.input(f.node.in[1]));
    // S-ASSIGN-2, S-ASSIGN-4: both incoming edges are EMPTY in s'.
    f.consume(f.node.in[0]);
    f.consume(f.node.in[1]);
    f.control_out(Go{});
    // S-ERR-ASSIGN (footnote 5): no side effect when an input is an error.
    const auto* x = std::get_if<VarId>(&handle);
    if (v.is_error() || x == nullptr) return f.one();
    // S-ASSIGN-5: VarValue(x) = f(w, v) in s', where w = VarValue(x) in s.
    // S-ASSIGN-6: every other VarValue(y) is unchanged (s' is a copy of s).
    const Tensor args[] = {f.s.var_value[x->index()], v};
    Successors out;
    for (auto& tuple : apply(*f.node.op.fn, args, f.node.attrs(), f.sem.options().terms)) {
      State next = f.next;
      next.var_value[x->index()] = std::move(tuple[0]);
      out.push_back(std::move(next));
    }
    return out;
  }
};

// RefIdentity: a variable handle in and out.
struct RefIdentity : OpRule {
  // C-REF: RefIdentity passes its variable handle on.
  static Successors fire(Firing& f, bool dead_control) {
    if (f.dead(dead_control)) return fire_dead(f);
    return pass_on(f);
  }
};

}  // namespace tfsem::rules
