// The TF operations (section 3.1.1 and, for control flow, section 4 and the
// thesis's section 3.2). Functions f are the registry's (registry.hpp); the
// other operations are listed here, once, with their attributes: this table is
// what parsing, validation, the documentation and the exporters read.
#pragma once

#include "semantics/registry.hpp"

#include <string_view>
#include <vector>

namespace tfsem {

enum class OpKind : std::uint8_t {
  function,        // f: Tensors^k -> Tensors^l
  var,             // Var(x)
  read,            // Read
  assign,          // Assign-f (Write = Assign-Snd)
  switch_,         // Switch(data, pred): data to output 1 if pred else output 0, DEAD to the other
  merge,           // Merge(d_1..d_k): forwards the live input, and its index
  enter,           // Enter(frame): into iteration 0 of a child frame
  exit,            // Exit: back to the parent frame
  next_iteration,  // NextIteration: iteration i to i + 1
  ref_identity,    // RefIdentity: a variable handle, passed on
  call,            // Call(function, site): into the function's frame, the site appended to the tag
  return_,         // Return(function, site): a result of the call made at the site, back in the caller
  send,            // Send: its input into the rendezvous, the edge to its Recv
  recv,            // Recv: the rendezvous's value, to every consumer on its device
};

struct OpDef {
  std::string_view name;
  OpKind kind;
  bool ref = false;  // carries a variable handle (TF1's Ref forms) rather than a tensor
  std::vector<AttrSpec> attrs{};
  std::string_view doc{};
};

// Switch, Merge, Enter, Exit, NextIteration, their Ref forms, RefIdentity,
// the thesis's Call and Return (its section 5), and the partitioner's Send and
// Recv (S-SEND, S-RECV).
const std::vector<OpDef>& control_ops();
const OpDef* find_control_op(std::string_view name);

// Enter's attributes.
inline constexpr std::string_view kFrameAttr = "frame";
inline constexpr std::string_view kConstantAttr = "is_constant";
inline constexpr std::string_view kParallelIterationsAttr = "parallel_iterations";
inline constexpr std::int64_t kDefaultParallelIterations = 10;  // TensorFlow's default
// Call's and Return's: the function called, and the number of the call site
// (the element Call appends to the tag and Return removes).
inline constexpr std::string_view kFunctionAttr = "function";
inline constexpr std::string_view kSiteAttr = "site";

// The attributes an operation named `op` declares (a function's, Assign-f's
// f's, or a control-flow op's); nullptr for an unknown op.
const std::vector<AttrSpec>* attr_specs(std::string_view op);

}  // namespace tfsem
