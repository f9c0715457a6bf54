// Send and Recv, the pair the partitioner puts on an edge that crosses devices
// (docs/devices.md). The rendezvous TensorFlow keys by
// "send_device;recv_device;tensor_name" is the tensor edge from the Send to
// its Recv, whose id is that key: InTransit of that edge is the rendezvous's
// slot, so the state stays VarValue and InTransit (S-STATE).
#pragma once

#include "semantics/rules/op_rule.hpp"

namespace tfsem::rules {

// Send: a tensor, or a variable edge, in; the rendezvous out.
struct Send : OpRule {
  // A Send on a variable edge copies the variable's value: a reader of x.
  static Access access(const Program& p, NodeId n) {
    if (const auto x = p.variable_of(n)) return {Access::Kind::read, *x};
    return {};
  }
  static std::uint32_t moves(const Program& p, NodeId n) { return kMovesFirstInput | (p.variable_of(n) ? kMovesVar : 0); }
  // S-SEND: Send consumes its input v and puts v in the rendezvous; on a
  // variable edge holding x, v is VarValue(x) in s, the value x holds when the
  // Send fires (TensorFlow copies a reference's buffer across devices once,
  // when it sends). C-DEAD: a DEAD input puts DEAD in the rendezvous, as
  // TensorFlow passes dead tokens through Send and Recv.
  static Successors fire(Firing& f, bool dead_control) {
    if (f.dead(dead_control)) return fire_dead(f);
    Content v = f.input(f.node.in[0]);
    if (const auto* x = std::get_if<VarId>(&v)) v = f.s.var_value[x->index()];
    f.consume(f.node.in[0]);
    f.emit(f.next, f.node.out[0], std::move(v));
    f.control_out(Go{});
    return f.one();
  }
};

// Recv: the rendezvous in; its value on every output.
struct Recv : OpRule {
  static std::uint32_t moves(const Program&, NodeId) { return kMovesFirstInput; }
  // S-RECV: Recv is enabled once its Send has fired (the rendezvous holds
  // contents, S-ENABLED); it consumes them and puts them on each of its
  // outgoing tensor edges, DEAD included (C-DEAD).
  static Successors fire(Firing& f, bool dead_control) {
    if (f.dead(dead_control)) return fire_dead(f);
    const auto v = f.input(f.node.in[0]);
    f.consume(f.node.in[0]);
    for (auto e : f.node.out) f.emit(f.next, e, v);
    f.control_out(Go{});
    return f.one();
  }
};

}  // namespace tfsem::rules
