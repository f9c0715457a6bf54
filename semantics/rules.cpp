// The rules of a step, one function per rule, each beside its id in
// specs/semantics.md. Semantics::fire picks the rule; every rule starts from
// s' = s with the transition recorded (C-ONCE) and its incoming control edges
// consumed (S-CTRL-1), and changes only the slots of its own edges and, for
// Assign-f, VarValue(x) (S-FRAME).
#include "semantics/semantics.hpp"

#include <stdexcept>

namespace tfsem {

namespace {

// One firing under construction: the rule reads s and writes s'.
struct Firing {
  const Semantics& sem;
  const State& s;
  Transition t;
  const Node& node;
  State next;  // s'

  // InTransit(d) in s, for input d of the transition.
  [[nodiscard]] const Content& input(EdgeId d) const {
    const auto slot = sem.in_slot(d, t.context);
    return s.at(slot.edge, slot.context);
  }
  // "the incoming edges are EMPTY afterwards"; a loop invariant stays for
  // every iteration (C-ENTER-CONST).
  void consume(EdgeId d) { consume(next, d); }
  void consume(State& into, EdgeId d) const {
    if (!sem.program().edge(d).invariant) into.put(sem.in_slot(d, t.context), Empty{});
  }
  // InTransit(e) in s', in the context of n's outgoing tokens (C-SLOT).
  void emit(State& into, EdgeId e, Content c) const { into.put(sem.out_slot(e, t.context), std::move(c)); }
  // S-CTRL-2: GO on every outgoing control edge; C-DEAD: DEAD instead.
  void control_out(Content c) {
    for (auto e : node.control_out) emit(next, e, c);
  }
  Successors one() { return Successors{std::move(next)}; }
};

// C-DEAD: a node (other than Merge, Exit, NextIteration and Call) with a DEAD input
// consumes its inputs and puts DEAD on every outgoing edge: no function is
// applied, and a dead Read reads nothing, a dead Assign-f changes nothing.
Successors fire_dead(Firing& f) {
  for (auto d : f.node.in) f.consume(d);
  for (auto e : f.node.out) f.emit(f.next, e, Dead{});
  f.control_out(Dead{});
  return f.one();
}

// S-FN-2, S-FN-3 once f's arguments are known: f consumes its inputs and puts
// the j-th result of f(args) on its j-th outgoing edge; S-NONDET: one
// successor per result of a relation.
Successors apply_function(Firing& f, const std::vector<Tensor>& args) {
  // S-FN-2: InTransit(d_i) = EMPTY in s'.
  for (auto d : f.node.in) f.consume(d);
  f.control_out(Go{});
  // S-FN-3: InTransit(e_j) is the j-th result of f(v_1..v_k) in s'.
  Successors out;
  for (auto& tuple : apply(*f.node.op.fn, args, *f.node.attrs, f.sem.options().terms)) {
    State next = f.next;
    for (std::size_t j = 0; j < f.node.out.size(); ++j) f.emit(next, f.node.out[j], std::move(tuple[j]));
    out.push_back(std::move(next));
  }
  return out;
}

// S-FN-1..3: f consumes v_1..v_k and puts the j-th result on its j-th outgoing edge.
Successors fire_function(Firing& f) {
  std::vector<Tensor> args;
  // S-FN-1: InTransit(d_i) = v_i for some tensor v_i in s.
  for (auto d : f.node.in) args.push_back(std::get<Tensor>(f.input(d)));
  return apply_function(f, args);
}

// S-DEREF (TensorFlow 1's references, --tf1-refs): a function whose input d
// is a variable edge holding x takes VarValue(x) in s as that argument, when
// it fires: the read and f are one step, so f sees the value the variable
// holds at that moment, not a snapshot a Read took earlier. An error on the
// variable edge (C-SWITCH) is the argument instead.
Successors fire_deref(Firing& f) {
  std::vector<Tensor> args;
  for (auto d : f.node.in) {
    const auto& v = f.input(d);
    if (const auto* x = std::get_if<VarId>(&v)) args.push_back(f.s.var_value[x->index()]);
    else args.push_back(std::get<Tensor>(v));
  }
  return apply_function(f, args);
}

// S-VAR: "InTransit(e) = x in s', where e is n's outgoing variable edge".
Successors fire_var(Firing& f) {
  f.emit(f.next, f.node.out[0], f.node.op.var);
  f.control_out(Go{});
  return f.one();
}

// S-READ-1..3: Read consumes x and outputs VarValue(x). An error on the
// variable edge (an error predicate's, C-SWITCH) propagates instead.
Successors fire_read(Firing& f) {
  const auto handle = f.input(f.node.in[0]);  // S-READ-1: InTransit(d) = x in s
  f.consume(f.node.in[0]);                     // S-READ-2: InTransit(d) = EMPTY in s'
  // S-READ-3: InTransit(e) = VarValue(x) in s'.
  if (const auto* x = std::get_if<VarId>(&handle)) f.emit(f.next, f.node.out[0], f.s.var_value[x->index()]);
  else f.emit(f.next, f.node.out[0], handle);
  f.control_out(Go{});
  return f.one();
}

// S-ASSIGN-1..6: Assign-f consumes x and v, and VarValue(x) = f(w, v) with w =
// VarValue(x) in s, atomically; every other VarValue(y) is unchanged.
Successors fire_assign(Firing& f) {
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
  for (auto& tuple : apply(*f.node.op.fn, args, *f.node.attrs, f.sem.options().terms)) {
    State next = f.next;
    next.var_value[x->index()] = std::move(tuple[0]);
    out.push_back(std::move(next));
  }
  return out;
}

}  // namespace

std::variant<bool, Tensor> switch_predicate(const Tensor& p) {
  if (p.is_error()) return p;
  if (p.is_dense() && p.as_dense().dtype() == DType::boolean && element_count(p.as_dense().shape) == 1)
    return std::get<Buffer<bool>>(p.as_dense().data)[0];
  return Tensor::error(p.is_term() ? ErrorKind::domain : ErrorKind::dtype_mismatch,
                       "a Switch predicate is a bool scalar, not " + p.to_string(8));
}

namespace {

// C-SWITCH: Switch(data, pred) puts data on output 1 when pred is true and on
// output 0 when it is false, and DEAD on the other; an error predicate chooses
// no branch, and goes to both (S-ERR-PROP).
Successors fire_switch(Firing& f) {
  const auto data = f.input(f.node.in[0]);
  const auto pred = switch_predicate(std::get<Tensor>(f.input(f.node.in[1])));
  f.consume(f.node.in[0]);
  f.consume(f.node.in[1]);
  f.control_out(Go{});
  if (const auto* error = std::get_if<Tensor>(&pred)) {
    for (auto e : f.node.out) f.emit(f.next, e, *error);
    return f.one();
  }
  const bool taken = std::get<bool>(pred);
  f.emit(f.next, f.node.out[taken ? 1 : 0], data);
  f.emit(f.next, f.node.out[taken ? 0 : 1], Dead{});
  return f.one();
}

// C-MERGE: Merge forwards a live input on output 0 and its index on output 1,
// consuming that input alone. Several live inputs are a defect of the graph
// (C-MERGE-TWO-LIVE): each is a possible result, and the others stay.
Successors fire_merge(Firing& f) {
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
Successors fire_merge_dead(Firing& f) {
  for (auto d : f.node.in)
    if (is_dead(f.input(d))) f.consume(d);
  for (auto e : f.node.out) f.emit(f.next, e, Dead{});
  f.control_out(Dead{});
  return f.one();
}

// The control-flow ops that move one token: they consume their input and put
// it on their output; the rules differ only in the context it lands in
// (Semantics::out_context), and in the context the firing is recorded in.
Successors pass_on(Firing& f) {
  const auto v = f.input(f.node.in[0]);
  f.consume(f.node.in[0]);
  f.emit(f.next, f.node.out[0], v);
  f.control_out(Go{});
  return f.one();
}

// C-ENTER: Enter consumes its input in context c and puts it in iteration 0 of
// the frame instance entered from c (C-ENTER-CONST: a constant Enter's token
// there serves every iteration). DEAD enters too, by C-DEAD.
Successors fire_enter(Firing& f) {
  return pass_on(f);
}

// C-EXIT: Exit takes the live value of one iteration of its frame instance and
// puts it in the parent context; it fires once per frame instance (C-ONCE).
Successors fire_exit(Firing& f) {
  return pass_on(f);
}

// C-EXIT-DEAD: "dead Exits count only in the final iteration": once its frame
// instance is complete, an Exit whose input in the last iteration is DEAD puts
// DEAD in the parent context (a loop in an untaken branch).
Successors fire_exit_dead(Firing& f) {
  f.consume(f.node.in[0]);
  f.emit(f.next, f.node.out[0], Dead{});
  f.control_out(Dead{});
  return f.one();
}

// C-NEXT: NextIteration consumes its input in iteration i and puts it in
// iteration i + 1 of the same frame instance (C-NEXT-DEAD is in fire()).
Successors fire_next_iteration(Firing& f) {
  return pass_on(f);
}

// C-CALL: Call consumes its argument in context c and puts it in the context
// of the call made at its site from c (the tag with the site appended), and
// GO on its control edges to the site's Returns, in c.
Successors fire_call(Firing& f) {
  return pass_on(f);
}

// C-CALL-DEAD: a DEAD argument makes no call (the function's frame gets
// nothing, so a dead recursive call ends); DEAD goes on the control edges to
// the site's Returns instead ("every Call has a control edge to its Return").
Successors fire_call_dead(Firing& f) {
  f.consume(f.node.in[0]);
  f.control_out(Dead{});
  return f.one();
}

// C-RETURN: Return, in the caller's context c, takes the result of the call
// its site made from c (the input whose tag ends with its site, which it
// removes) and puts it in c. A DEAD control input from the site's Call means
// the call was not made: C-DEAD then outputs DEAD without the result.
Successors fire_return(Firing& f) {
  return pass_on(f);
}

// C-REF: RefIdentity passes its variable handle on.
Successors fire_ref_identity(Firing& f) {
  return pass_on(f);
}

}  // namespace

Successors Semantics::fire(const State& s, Transition t) const {
  const auto& node = program_->node(t.node);
  if (!enabled(s, t))
    throw std::logic_error("fire: " + transition_to_string(*program_, *contexts_, t) + " is not enabled");
  Firing f{*this, s, t, node, s};
  f.next.fired.insert({t.node, record_context(t)});  // C-ONCE
  bool dead = false;
  for (auto d : node.control_in) {
    dead = dead || is_dead(f.input(d));
    f.consume(d);  // S-CTRL-1: "InTransit(d) = EMPTY in s'"
  }
  switch (node.op.kind) {
    case OpKind::merge:
      return std::any_of(node.in.begin(), node.in.end(), [&](EdgeId d) { return holds(f.input(d)) == Holds::live; })
                 ? fire_merge(f)
                 : fire_merge_dead(f);
    case OpKind::exit: return holds(f.input(node.in[0])) == Holds::live && !dead ? fire_exit(f) : fire_exit_dead(f);
    case OpKind::next_iteration:
      if (!dead && !is_dead(f.input(node.in[0]))) return fire_next_iteration(f);
      f.consume(node.in[0]);  // C-NEXT-DEAD: deadness stops at NextIteration
      return f.one();
    case OpKind::call: return dead || is_dead(f.input(node.in[0])) ? fire_call_dead(f) : fire_call(f);
    default: break;
  }
  for (auto d : node.in) dead = dead || is_dead(f.input(d));
  if (dead) return fire_dead(f);
  switch (node.op.kind) {
    case OpKind::function: return program_->variable_of(t.node) ? fire_deref(f) : fire_function(f);
    case OpKind::var: return fire_var(f);
    case OpKind::read: return fire_read(f);
    case OpKind::assign: return fire_assign(f);
    case OpKind::switch_: return fire_switch(f);
    case OpKind::enter: return fire_enter(f);
    case OpKind::ref_identity: return fire_ref_identity(f);
    case OpKind::return_: return fire_return(f);
    default: break;
  }
  throw std::logic_error("fire: no rule for " + program_->label(t.node));
}

}  // namespace tfsem
