// Routing a fired node's tokens through frame instances and iterations
// (section 4; thesis sections 3.2 and 5), and firing at once: the executor's
// side of C-SLOT, C-DEAD, C-MERGE, C-ENTER, C-EXIT, C-NEXT, C-CALL, C-RETURN,
// C-BOUND, C-DONE.
#include "fast_exec/propagator.hpp"

#include "support/prefetch.hpp"

#include <algorithm>
#include <cassert>

namespace tfsem::fast_exec {

// What a live firing at once, or a Merge's, sends: on data output j,
// token(j); on each control output, GO, or DEAD when the Merge is dead.
struct Propagator::Sent {
  enum Shape : std::uint8_t { every, merge, one, constant };
  Shape shape = every;
  bool dead = false;
  Token v;                           // every: on each data output; merge: on 0; one: on output k alone
  std::uint32_t k = 0;               // merge: the live input, on output 1; one: the output v goes to
  const Token* constants = nullptr;  // constant: output j's token
  // Moves v out to the last output that carries it.
  Token token(std::uint32_t j, std::uint32_t data_outputs) {
    if (j >= data_outputs || dead) return dead ? Token(Dead{}) : Token(Go{});
    switch (shape) {
      case merge: return j == 0 ? std::move(v) : Token(Scalar::of(static_cast<std::int32_t>(k)));
      case one: return j == k ? std::move(v) : Token(Dead{});
      case constant: return constants[j];
      case every: break;
    }
    return j + 1 < data_outputs ? Token(v) : std::move(v);
  }
};

std::vector<std::uint8_t> at_once_firings(const CompiledGraph& g, const std::vector<bool>& on_accelerator) {
  std::vector<std::uint8_t> at_once(g.nodes.size(), 0);
  for (std::size_t n = 0; n < g.nodes.size(); ++n) {
    const auto& c = g.nodes[n];
    auto& a = at_once[n];
    switch (c.kind) {
      case OpKind::function:
        a = kWhenDead;
        if (c.fn->forwards && c.in_count == 1) a |= kForwarder;
        else if (on_accelerator[n]) break;
        else if (c.constant != 0) a |= kConstant;
        else if (c.fn->binary && c.in_count == 2 && c.fn->outputs == 1) a |= kScalar;
        break;
      case OpKind::ref_identity:
      case OpKind::return_: a = c.in_count == 1 ? kWhenDead | kForwarder : kWhenDead; break;
      case OpKind::merge: a = kMerge; break;
      case OpKind::switch_: a = kWhenDead | kScalar; break;
      case OpKind::var:
      case OpKind::read:
      case OpKind::assign: a = kWhenDead; break;
      case OpKind::call:
        a = kWhenDead;
        if (c.in_count == 1 && c.out_count == 1 && g.outs[c.out_begin].route == Route::call) a |= kCall;
        break;
      default: break;
    }
  }
  return at_once;
}

std::vector<std::uint32_t> inline_successors(const CompiledGraph& g, const std::vector<std::uint8_t>& at_once) {
  std::vector<std::uint32_t> next(g.nodes.size(), kNone);
  for (std::size_t n = 0; n < g.nodes.size(); ++n) {
    const auto& c = g.nodes[n];
    if (c.kind == OpKind::enter || c.kind == OpKind::exit || c.kind == OpKind::next_iteration || c.kind == OpKind::call ||
        c.returns)
      continue;
    std::uint32_t found = kNone;
    bool ok = true;
    for (std::uint32_t j = 0; ok && j < c.out_count + c.control_out_count; ++j) {
      const auto& o = g.outs[c.out_begin + j];
      if (o.route == Route::output) continue;
      const auto& d = g.nodes[o.dst];
      ok = o.route == Route::same && found == kNone && d.pending == 1 && d.kind != OpKind::return_ &&
           (at_once[o.dst] & ~(kWhenDead | kCall)) == 0;
      found = j;
    }
    if (ok) next[n] = found;
  }
  return next;
}

Propagator::Propagator(const CompiledGraph& g, const ExecOptions& options, const std::vector<bool>& on_accelerator,
                       std::span<const Token> host_constants)
    : graph_(g),
      record_merges_(options.record_merges),
      max_iterations_(options.max_iterations),
      max_depth_(options.max_depth),
      host_constants_(host_constants),
      at_once_(at_once_firings(g, on_accelerator)),
      inline_next_(inline_successors(g, at_once_)),
      pools_(g, options.calls, static_cast<std::uint32_t>(std::max(1, options.threads))) {}

inline void Propagator::queue(IterState& it, std::uint32_t n, Ready& ready) {
  ++it.outstanding_ops;
  ready.push_back(Task{&it, n});
}

void Propagator::deliver(IterState& it, const CompiledOut& o, Token&& v, Ready& ready, std::uint32_t nested) {
  if (!arrive(it, o, std::move(v))) return;
  if (nested <= kNestedAtOnce && it.inst->run->at_once && fires_at_once(it, o.dst))
    return fire_at_once(it, o.dst, ready, nested);
  queue(it, o.dst, ready);
}

void Propagator::return_to_caller(Propagation& run, const Instance& callee, const CompiledOut& o, Token&& v,
                                  Ready& ready, std::uint32_t nested) {
  if (graph_.nodes[o.dst].site != callee.site) return;  // another site's Return: nothing from this call
  const Guard guard(callee.parent->inst->lock, run.shared, ready.worker);
  deliver(*callee.parent, o, std::move(v), ready, nested);
}

bool Propagator::arrive(IterState& it, const CompiledOut& o, Token&& v) {
  assert(o.dst != kNone);  // an output edge's slot is its fetch index (put)
  if (o.into == Into::merge) return arrive_at_merge(it, o, std::move(v));
  if (o.into == Into::return_) return arrive_at_return(it, o, std::move(v));
  const auto l = o.local;
  if (v.dead()) {
    it.flags[l] |= o.control ? kDeadControl : kDeadInput;  // C-DEAD: the flag is all a DEAD firing reads
  } else if (!o.control) {
    if (v.owns()) it.flags[l] |= kHeldInput;
    it.slots[o.slot].fill(std::move(v));
  }
  return --it.pending[l] == 0;
}

bool Propagator::arrive_at_return(IterState& it, const CompiledOut& o, Token&& v) {
  const auto l = o.local;
  auto& flags = it.flags[l];
  if (!o.control) {
    if ((flags & kDeadCall) != 0) return false;
    if (v.dead()) flags |= kDeadInput;
    else if (v.owns()) flags |= kHeldInput;
    it.slots[o.slot].fill(std::move(v));  // C-RETURN looks at whether the result came
  } else if (v.dead()) {
    flags |= kDeadControl;
    // C-RETURN: a call not made returns DEAD without waiting for a result
    // (which may have come already, from a call made by the site's other Calls).
    if ((flags & kDeadCall) == 0) {
      flags |= kDeadCall;
      if (it.slots[graph_.in_slots[graph_.nodes[o.dst].in_begin]].empty()) --it.pending[l];
    }
  }
  return --it.pending[l] == 0;
}

bool Propagator::arrive_at_merge(IterState& it, const CompiledOut& o, Token&& v) {
  const auto l = o.local;
  auto& flags = it.flags[l];
  if ((flags & kFired) != 0) return false;  // a second live input (C-MERGE-TWO-LIVE), or too late: dropped
  auto& aux = it.aux[l];
  if (o.control) {
    --it.pending[l];
  } else if (!v.dead()) {
    if (aux < 0) return false;  // a second live input: the first one wins
    aux = -static_cast<std::int32_t>(graph_.program->edge(EdgeId(o.edge)).dst_port) - 1;
    it.slots[o.slot].fill(std::move(v));
  } else if (aux > 0) {
    // C-MERGE-DEAD counts the inputs the Merge waits for: a loop's entering
    // value in iteration 0, its NextIteration's after; the call's argument.
    if (graph_.waits_for(o.edge, graph_.nodes[o.dst].loop_merge, it.inst->site, it.iteration > 0)) --aux;
  }
  if (it.pending[l] != 0 || aux > 0) return false;
  flags |= kFired;
  return true;
}

[[gnu::always_inline]] inline bool Propagator::fires_at_once(const IterState& it, std::uint32_t n) const {
  const auto a = at_once_[n];
  if ((a & (kForwarder | kMerge | kConstant)) != 0) return true;
  if (a == 0) return false;
  const auto& c = graph_.nodes[n];
  if ((it.flags[c.local] & (kDeadControl | kDeadInput)) != 0)  // kWhenDead
    return c.kind != OpKind::call || it.children[c.child] == nullptr;  // the call site's instance has its own lock
  if ((a & kCall) != 0) return !last_call(it, n);
  if ((a & kScalar) == 0) return false;
  const auto* x = it.slots[graph_.in_slots[c.in_begin]].scalar();
  const auto* y = it.slots[graph_.in_slots[c.in_begin + 1]].scalar();
  return c.kind == OpKind::switch_ ? y != nullptr && y->dtype == DType::boolean : x != nullptr && y != nullptr;
}

bool Propagator::apply_at_once(IterState& it, std::uint32_t n, Sent& s) {
  const auto& c = graph_.nodes[n];
  auto input = [&](std::uint32_t port) -> Token& { return it.slots[graph_.in_slots[c.in_begin + port]]; };
  if (c.kind == OpKind::merge) {
    // C-MERGE: the live input on output 0, its index on output 1; C-MERGE-DEAD: every expected input DEAD.
    s.dead = it.aux[c.local] >= 0;
    if (s.dead) return true;
    s.shape = Sent::merge;
    s.k = static_cast<std::uint32_t>(-it.aux[c.local] - 1);
    s.v = std::move(input(s.k));
    if (record_merges_) {
      const std::lock_guard guard(it.inst->run->trace_lock);
      it.inst->run->choices.push_back({NodeId(n), context_of(graph_, &it), s.k});
    }
    return true;
  }
  const auto a = at_once_[n];
  if ((a & kConstant) != 0) {  // S-FN-1..3, f of no arguments: its tuple
    s.shape = Sent::constant;
    s.constants = host_constants_.data() + (c.constant - 1);  // a NoOp's tuple may start past the end: it is empty
  } else if (c.kind == OpKind::switch_) {  // C-SWITCH: the data input on output 1 when true, on 0 when false
    s.shape = Sent::one;
    s.k = input(1).scalar()->boolean ? 1 : 0;
    s.v = std::move(input(0));
  } else if ((a & kScalar) != 0) {  // S-FN-1..3 on two unboxed scalars
    const auto r = apply_binary(*c.fn, *input(0).scalar(), *input(1).scalar());
    if (!r) return false;  // not a scalar of theirs: the kernel, as a task
    input(0) = Token{};
    input(1) = Token{};
    s.v = Token(*r);
  } else {
    s.v = std::move(input(0));  // a forwarder: S-FN-1..3, f the identity; C-RETURN
  }
  return true;
}

bool Propagator::last_call(const IterState& it, std::uint32_t n) const {
  const auto& c = graph_.nodes[n];
  const auto* child = it.children[c.child];
  return child != nullptr ? child->inputs_pending() <= 1
                          : static_cast<std::int32_t>(graph_.calls_at_site[n]) - it.dead_calls[c.child] <= 1;
}

bool Propagator::call_at_once(IterState& it, std::uint32_t n, Ready& ready, std::uint32_t nested) {
  // Past the bound, the argument's Merge in the callee would be queued, and a
  // Merge fires only at once: the Call goes as a task, which starts afresh.
  if (nested >= kNestedAtOnce || last_call(it, n)) return false;
  const auto& c = graph_.nodes[n];
  // Under the caller's lock, while shared: the callee's too, if no other
  // worker holds it; a new one's is free, as no other worker can reach it yet.
  const bool shared = it.inst->run->shared;
  auto* child = it.children[c.child];
  if (child == nullptr) {
    child = child_of(it, n, true, ready);
    if (shared) child->lock.lock(ready.worker);
  } else if (shared) {
    if (!child->lock.try_lock(ready.worker)) return false;
    // A Call task of the site may have come in (under the callee's lock
    // alone) since this Call was found not to be the last: then it is.
    if (last_call(it, n)) {
      child->lock.unlock();
      return false;
    }
  }
  if (child->iterations == 0) start_iteration(*child, 0, ready);
  // Counted before the argument goes in: a Call of the site that its
  // cascade makes ready sees that this one has come.
  child->input_came();
  Token v{std::move(it.slots[graph_.in_slots[c.in_begin]])};
  deliver(*child->at(0), graph_.outs[c.out_begin], std::move(v), ready, nested + 1);
  if (shared) child->lock.unlock();
  return true;
}

void Propagator::fire_at_once(IterState& it, std::uint32_t n, Ready& ready, std::uint32_t nested) {
  auto& run = *it.inst->run;
  InlineVector<std::uint32_t, 8> todo{n};
  auto last = n;  // the node fired before
  auto send = [&](const CompiledOut& o, Token&& v) __attribute__((always_inline)) {
    if (o.route == Route::caller) return return_to_caller(run, *it.inst, o, std::move(v), ready, nested + 1);
    if (o.dst == kNone) return put(run, it, o, std::move(v), ready);
    if (!arrive(it, o, std::move(v))) return;
    if (fires_at_once(it, o.dst)) todo.push_back(o.dst);
    else queue(it, o.dst, ready);
  };
  while (!todo.empty()) {
    const auto node = todo.back();
    todo.pop_back();
    const auto& c = graph_.nodes[node];
    // A chain written in order fires up the ids one by one: load ahead.
    if (node == last + 1 && node + kFireAhead < graph_.nodes.size()) prefetch(&graph_.nodes[node + kFireAhead]);
    last = node;
    const auto* outs = graph_.outs.data() + c.out_begin;
    const auto out_count = c.out_count + c.control_out_count;
    if (c.kind != OpKind::merge && (it.flags[c.local] & (kDeadControl | kDeadInput)) != 0) {
      // C-DEAD: DEAD on every output; C-CALL-DEAD: counted at its site, nothing to the callee.
      if (c.kind == OpKind::call && it.children[c.child] != nullptr) {
        // A live Call of its site fired at once after this one was found ready,
        // and made the call: the callee waits for this one, which tells it as a task.
        queue(it, node, ready);
        continue;
      }
      drop_inputs(it, c);
      std::uint32_t first = 0;
      if (c.kind == OpKind::call) {
        child_of(it, node, false, ready);
        first = c.out_count;
      }
      ++it.fired;
      for (auto j = first; j < out_count; ++j) send(outs[j], Token(Dead{}));
      continue;
    }
    if (c.kind == OpKind::call) {  // C-CALL: the argument to the callee, GO on the control outputs
      if (!call_at_once(it, node, ready, nested)) {
        queue(it, node, ready);
        continue;
      }
      ++it.fired;
      for (auto j = c.out_count; j < out_count; ++j) send(outs[j], Token(Go{}));
      continue;
    }
    Sent sent;
    if (!apply_at_once(it, node, sent)) {
      queue(it, node, ready);
      continue;
    }
    ++it.fired;
    for (std::uint32_t j = 0; j < out_count; ++j) {
      if (sent.shape == Sent::constant && j < c.out_count && outs[j].route == Route::output)
        fetch_constant(run, outs[j].slot, sent.constants[j]);
      else
        send(outs[j], sent.token(j, c.out_count));
    }
  }
}

void Propagator::put(Propagation& run, IterState& it, const CompiledOut& o, Token&& v, Ready& ready) {
  if (o.route == Route::caller) return return_to_caller(run, *it.inst, o, std::move(v), ready);  // C-RETURN
  if (o.dst != kNone) return deliver(it, o, std::move(v), ready);
  if (o.slot != kNone) fetch(run, o.slot, std::move(v));  // G-FETCH: only the root's outputs are fetched
}

void Propagator::fetch(Propagation& run, std::uint32_t k, Token&& v) {
  run.fetched_now[k] = 1;
  if (v.tensor() != nullptr) {  // the usual: a tensor on the host (a fetched constant stays boxed)
    run.fetched[k] = v.take_tensor();
  } else if (v.device() == nullptr) {
    run.fetched[k] = v.take_content();
  } else {
    const std::lock_guard guard(run.trace_lock);
    run.on_device.emplace_back(k, std::move(v));
  }
}

void Propagator::fetch_constant(Propagation& run, std::uint32_t k, const Token& v) {
  if (k == kNone) return;
  const auto* t = v.tensor();
  assert(t != nullptr);  // a fetched constant's tokens are boxed (Executor::host_constants_)
  run.fetched_now[k] = 1;
  auto& to = run.fetched[k];
  if (const auto* held = std::get_if<Tensor>(&to); held != nullptr && held->identity() == t->identity()) return;
  to = *t;
}

namespace {

// X-HALT: whether a call of function f made because of an error from
// iteration it is made within a call of f, every call between made so too:
// then each goes down both branches, or on no branch, into the next.
bool recurs_on_error(const IterState& it, std::uint32_t f) {
  for (const auto* inst = it.inst; inst->error_call; inst = inst->parent->inst)
    if (inst->frame == f) return true;
  return false;
}

}  // namespace

bool Propagator::forced_by_error(const IterState& it, std::uint32_t n) const {
  const bool in_error_call = it.inst->error_call;
  if (!in_error_call && !it.error_predicate.load(std::memory_order_relaxed)) return false;
  const auto& p = *graph_.program;
  const auto frame = graph_.nodes[n].frame;
  // Whether node m may pass DEAD on whatever the arguments of its call: a
  // Switch, a call's Return or a loop's Exit, a Recv, or a Merge other than
  // an argument Merge (which its function's Calls alone feed).
  const auto may_be_dead = [&](std::uint32_t m) {
    const auto kind = graph_.nodes[m].kind;
    if (kind != OpKind::merge) return kind == OpKind::switch_ || kind == OpKind::return_ || kind == OpKind::exit || kind == OpKind::recv;
    const auto& in = p.node(NodeId(m)).in;
    return std::any_of(in.begin(), in.end(), [&](EdgeId e) {
      return p.edge(e).is_input() || graph_.nodes[p.edge(e).src.index()].kind != OpKind::call;
    });
  };
  std::vector<std::uint32_t> work{n}, seen;
  bool guarded = false;  // n may not fire, or fire DEAD, whatever the arguments
  while (!work.empty()) {
    const auto& node = p.node(NodeId(work.back()));
    work.pop_back();
    for (const auto* edges : {&node.in, &node.control_in})
      for (const auto e : *edges) {
        const auto& edge = p.edge(e);
        if (edge.is_input()) continue;
        const auto m = static_cast<std::uint32_t>(edge.src.index());
        const auto& s = graph_.nodes[m];
        if (s.frame != frame || std::find(seen.begin(), seen.end(), m) != seen.end()) continue;
        if (s.kind == OpKind::switch_ && (it.flags[s.local] & kErrorPredicate) != 0) return true;
        guarded = guarded || may_be_dead(m);
        if (s.kind == OpKind::merge) continue;  // it joins the branches
        seen.push_back(m);
        work.push_back(m);
      }
  }
  return in_error_call && !guarded;
}

Instance* Propagator::child_of(IterState& it, std::uint32_t n, bool live, Ready& ready) {
  const auto& c = graph_.nodes[n];
  auto*& child = it.children[c.child];
  if (child != nullptr) return child;
  // C-CALL-DEAD: an instance whose Calls were all DEAD would start no iteration
  // and complete at once; a site's DEAD Calls are counted until one is live.
  auto& dead = it.dead_calls[c.child];
  const auto calls = c.kind == OpKind::call ? static_cast<std::int32_t>(graph_.calls_at_site[n]) : 0;  // a loop's: none
  if (!live) {
    if (++dead == calls) dead = 0;
    return nullptr;
  }
  child = pools_.instance(c.target, ready.worker);
  child->run = it.inst->run;
  child->parent = &it;
  child->depth = it.inst->depth + 1;
  child->calls = it.inst->calls + (c.kind == OpKind::call ? 1 : 0);
  child->error_call = c.kind == OpKind::call && forced_by_error(it, n);
  if (child->error_call && recurs_on_error(it, c.target))
    it.inst->run->stop(Halt::Why::endless_recursion, n, graph_, &it, "");
  else if (c.kind == OpKind::call && child->calls > max_depth_ && max_depth_ != 0)  // X-HALT: its run gives it up
    it.inst->run->stop(Halt::Why::depth_limit, n, graph_, &it, std::to_string(child->calls));
  child->child = c.child;
  child->site = c.site;
  child->set_inputs_pending(c.kind == OpKind::enter ? graph_.frames[c.target].enters : calls - std::exchange(dead, 0));
  ++it.outstanding_frames;
  // A loop's iteration 0 starts with the instance; a call's at its first live argument.
  if (c.kind == OpKind::enter) start_iteration(*child, 0, ready);
  return child;
}

void Propagator::start(Propagation& run, bool at_once, Ready& ready) {
  run.fetched.resize(graph_.fetched.size());  // overwritten where fetched (fetch), emptied by the executor elsewhere
  run.fetched_now.assign(graph_.fetched.size(), 0);
  run.on_device.clear();
  run.choices.clear();
  run.finished = false;
  run.stuck_iteration.store(false, std::memory_order_relaxed);
  run.halted.store(false, std::memory_order_relaxed);
  run.halt.reset();
  run.shared = false;  // one worker at the start (Executor::share)
  run.at_once = at_once;
  auto* root = pools_.instance(0, ready.worker);
  root->run = &run;
  run.root = root;
  const Guard guard(root->lock, run.shared, ready.worker);
  auto* it = start_iteration(*root, 0, ready);
  const auto& p = *graph_.program;
  for (const auto& o : graph_.inputs) deliver(*it, o, Token(p.initial(EdgeId(o.edge))), ready);
}

void Propagator::complete_at_start(Propagation& run, Ready& ready) {
  const Guard guard(run.root->lock, run.shared, ready.worker);
  if (advance(*run.root, ready)) complete(run, run.root, ready);
}

IterState* Propagator::start_iteration(Instance& inst, std::uint32_t i, Ready& ready) {
  const auto& cf = graph_.frames[inst.frame];
  auto* it = pools_.iteration(inst.frame, ready.worker);
  it->inst = &inst;
  it->iteration = i;
  if (i + 1 - inst.first > inst.ring.size()) {  // more iterations in flight than the ring holds
    decltype(inst.ring) ring(inst.ring.size() * 2, nullptr);
    for (auto k = inst.first; k < i; ++k) ring[k & (ring.size() - 1)] = inst.at(k);
    inst.ring = std::move(ring);
  }
  inst.ring[i & (inst.ring.size() - 1)] = it;
  inst.iterations = i + 1;
  for (auto m : cf.merges) {
    const auto& c = graph_.nodes[m];
    std::int32_t expected = 0;
    for (std::uint32_t k = 0; k < c.in_count; ++k) {
      expected += graph_.waits_for(graph_.in_edges[c.in_begin + k], c.loop_merge, inst.site, i > 0);
    }
    it->aux[c.local] = expected;
  }
  // Done iterations before this one are not needed any more (C-EXIT-DEAD looks at the last).
  while (inst.first < inst.done && inst.first + 1 < inst.iterations) pools_.give_back(inst.frame, inst.at(inst.first++), ready.worker);
  for (const auto& [o, v] : inst.invariants) deliver(*it, graph_.outs[o], Token(v), ready);
  for (auto n : cf.sources) queue(*it, n, ready);
  return it;
}

bool Propagator::advance(Instance& inst, Ready& ready) {
  const auto bound = graph_.frames[inst.frame].parallel_iterations;
  while (inst.done < inst.iterations) {
    const auto* it = inst.at(inst.done);
    // C-DONE: nothing in it, or in what it started, can fire; iteration 0 has every Enter.
    if (it->outstanding_ops > 0 || it->outstanding_frames > 0 || (inst.done == 0 && inst.inputs_pending() > 0)) break;
    if (it->fired != graph_.frames[inst.frame].nodes.size()) inst.run->stuck_iteration.store(true, std::memory_order_relaxed);
    ++inst.done;
    // C-BOUND: the next iteration starts once fewer than parallel_iterations are in flight.
    if (!inst.deferred.empty() && inst.iterations < inst.done + bound) {
      auto* next = start_iteration(inst, inst.iterations, ready);
      for (auto& [o, v] : inst.deferred) deliver(*next, graph_.outs[o], std::move(v), ready);
      inst.deferred.clear();
    }
  }
  while (inst.first < inst.done && inst.first + 1 < inst.iterations) pools_.give_back(inst.frame, inst.at(inst.first++), ready.worker);
  return inst.inputs_pending() <= 0 && inst.done == inst.iterations && inst.deferred.empty();
}

void Propagator::complete(Propagation& run, Instance* inst, Ready& ready) {
  if (run.halted.load(std::memory_order_relaxed)) return;  // X-HALT: given back by abandon, not completed
  while (inst != nullptr) {
    auto* parent = inst->parent;
    auto* last = inst->iterations > 0 ? inst->at(inst->iterations - 1) : nullptr;
    bool parent_complete = false;
    if (parent != nullptr) {
      const Guard guard(parent->inst->lock, run.shared, ready.worker);
      // C-EXIT-DEAD: an Exit that delivered nothing, DEAD in the last iteration, delivers DEAD.
      if (last != nullptr)
        for (auto x : graph_.frames[inst->frame].exits) {
          const auto& c = graph_.nodes[x];
          if (inst->exit_fired[c.exit] != 0 || (last->flags[c.local] & kDeadExit) == 0) continue;
          for (std::uint32_t j = 0; j < c.out_count + c.control_out_count; ++j) {
            put(run, *parent, graph_.outs[c.out_begin + j], Token(Dead{}), ready);
          }
        }
      parent->children[inst->child] = nullptr;
      --parent->outstanding_frames;
      parent_complete = advance(*parent->inst, ready);
    }
    if (last != nullptr) pools_.give_back(inst->frame, last, ready.worker);
    pools_.give_back(inst, ready.worker);
    if (parent == nullptr) {  // the root: nothing is left to fire
      run.finished = true;
      return;
    }
    inst = parent_complete ? parent->inst : nullptr;
  }
}

void Propagator::abandon(Instance* inst) {
  for (auto i = inst->first; i < inst->iterations; ++i) {
    auto* it = inst->at(i);
    for (auto*& child : it->children)
      if (child != nullptr) abandon(std::exchange(child, nullptr));
    pools_.give_back(inst->frame, it, 0);
  }
  inst->deferred.clear();
  pools_.give_back(inst, 0);
}

void Propagator::route(Propagation& run, Task t, std::span<Token> data, Token control, Ready& ready) {
  const auto& c = graph_.nodes[t.node];
  auto& it = *t.it;
  auto& inst = *it.inst;
  const auto outs = std::span<const CompiledOut>(graph_.outs).subspan(c.out_begin, c.out_count + c.control_out_count);
  const bool controls = !control.empty();
  // Output j's token, handed on without a temporary. The control token (GO,
  // DEAD) is each control edge's: a copy of it, which is trivial, is moved out.
  Token token;
  auto value = [&](std::size_t j) -> Token&& {
    if (j < c.out_count) return std::move(data[j]);
    token = control;
    return std::move(token);
  };
  auto sent = [&](std::size_t j) { return j < c.out_count ? j < data.size() : controls; };
  // The inline fast path (inline_successors): the successor's input filled
  // without the lock, and this node's operation passed on to it.
  if (const auto k = inline_next_[t.node]; k != kNone && sent(k)) {
    for (std::size_t j = 0; j < outs.size(); ++j)  // the graph's outputs: each fetch written by this node alone
      if (j != k && sent(j)) put(run, it, outs[j], value(j), ready);
    const auto& o = outs[k];
    const auto l = o.local;
    if (!o.control) {  // the successor's one input: a DEAD firing of it holds nothing else
      auto& s = it.slots[o.slot];
      s = value(k);
      if (s.dead()) it.flags[l] |= kDeadInput;
    } else if (control.dead()) {
      it.flags[l] |= kDeadControl;
    }
    it.pending[l] = 0;
    ready.push_back(Task{&it, o.dst, t.inlined + 1});
    return;
  }
  // Into another instance first, each under its lock: Enter and Call start
  // (or feed) a child instance, Exit delivers to the parent once. A result
  // goes back to the caller's Return below, from this instance's lock.
  if (c.kind == OpKind::enter || c.kind == OpKind::call) {
    Instance* child = nullptr;
    {
      const Guard guard(inst.lock, run.shared, ready.worker);
      child = child_of(it, t.node, c.kind == OpKind::enter || !data.empty(), ready);
    }
    bool child_complete = false;
    if (child != nullptr) {
      const Guard guard(child->lock, run.shared, ready.worker);
      if (c.kind == OpKind::call && !data.empty() && child->iterations == 0) start_iteration(*child, 0, ready);
      for (std::size_t j = 0; j < outs.size(); ++j) {
        // A Call's control edges stay in the caller; an unfetched output in the child is dropped.
        if (!sent(j) || (outs[j].route != Route::enter && outs[j].route != Route::call)) continue;
        if (c.invariant && j < c.out_count) {  // C-ENTER-CONST: every iteration's, present and future
          const auto v = value(j);
          child->invariants.emplace_back(c.out_begin + static_cast<std::uint32_t>(j), v);
          for (auto i = child->first; i < child->iterations; ++i) deliver(*child->at(i), outs[j], Token(v), ready);
        } else {
          deliver(*child->at(0), outs[j], value(j), ready);
        }
      }
      child->input_came();
      child_complete = advance(*child, ready);
    }
    if (child_complete) complete(run, child, ready);
  } else if (c.kind == OpKind::exit && !data.empty()) {
    bool first = false;
    {
      const Guard guard(inst.lock, run.shared, ready.worker);
      first = inst.exit_fired[c.exit] == 0;  // C-ONCE: one delivery per frame instance
      inst.exit_fired[c.exit] = 1;
    }
    if (first) {
      const Guard guard(inst.parent->inst->lock, run.shared, ready.worker);
      for (std::size_t j = 0; j < outs.size(); ++j)
        if (sent(j)) put(run, *inst.parent, outs[j], value(j), ready);
    } else if (it.error_predicate.load(std::memory_order_relaxed)) {
      // X-HALT: an error predicate went down both branches again, so the loop would go on with it.
      const auto* v = data[0].tensor();
      const auto* s = data[0].scalar();
      run.stop(Halt::Why::endless_loop, t.node, graph_, &it, v != nullptr ? v->to_string(8) : s != nullptr ? s->tensor().to_string(8) : "");
    }
  }
  bool done = false;
  {
    const Guard guard(inst.lock, run.shared, ready.worker);
    for (std::size_t j = 0; j < outs.size(); ++j) {
      if (!sent(j) || c.kind == OpKind::enter || c.kind == OpKind::exit) continue;  // delivered above
      const auto& o = outs[j];
      switch (o.route) {
        case Route::same: deliver(it, o, value(j), ready); break;
        case Route::next: {  // C-NEXT, C-BOUND
          const auto i = it.iteration + 1;
          if (i == max_iterations_) {  // X-HALT (never for 0: i >= 1)
            run.stop(Halt::Why::iteration_limit, t.node, graph_, &it, std::to_string(i));
            break;
          }
          const auto bound = graph_.frames[inst.frame].parallel_iterations;
          if (i < inst.iterations) deliver(*inst.at(i), o, value(j), ready);
          else if (i < inst.done + bound) deliver(*start_iteration(inst, i, ready), o, value(j), ready);
          else inst.deferred.emplace_back(c.out_begin + static_cast<std::uint32_t>(j), value(j));
          break;
        }
        case Route::caller:  // C-RETURN, under the caller's lock inside this one's
        case Route::output: put(run, it, o, value(j), ready); break;
        default: break;  // delivered above
      }
    }
    if (c.kind == OpKind::exit && data.empty()) it.flags[c.local] |= kDeadExit;
    it.fired += 1 + t.inlined;  // this node, and those that handed their operation on to it
    // Only this iteration changed: while it has work, nothing can be done.
    done = --it.outstanding_ops == 0 && advance(inst, ready);
  }
  if (done) complete(run, &inst, ready);
}

}  // namespace tfsem::fast_exec
