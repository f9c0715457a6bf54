// The one table by op kind: the arm of each operation's rules. Everything in
// the semantics that depends on what a node does goes through here.
#pragma once

#include "semantics/rules/call.hpp"
#include "semantics/rules/cond.hpp"
#include "semantics/rules/dataflow.hpp"
#include "semantics/rules/loop.hpp"
#include "semantics/rules/rendezvous.hpp"

#include <stdexcept>

namespace tfsem::rules {

// f(Arm{}) for the arm of op kind k.
template <class F>
decltype(auto) with_rule(OpKind k, F&& f) {
  switch (k) {
    case OpKind::function: return f(Function{});
    case OpKind::var: return f(VarOp{});
    case OpKind::read: return f(Read{});
    case OpKind::assign: return f(Assign{});
    case OpKind::ref_identity: return f(RefIdentity{});
    case OpKind::switch_: return f(Switch{});
    case OpKind::merge: return f(Merge{});
    case OpKind::enter: return f(Enter{});
    case OpKind::exit: return f(Exit{});
    case OpKind::next_iteration: return f(NextIteration{});
    case OpKind::call: return f(Call{});
    case OpKind::return_: return f(Return{});
    case OpKind::send: return f(Send{});
    case OpKind::recv: return f(Recv{});
  }
  throw std::logic_error("no rule for this op kind");
}

}  // namespace tfsem::rules
