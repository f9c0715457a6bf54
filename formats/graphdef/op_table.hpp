// How each TensorFlow op is imported: the construct of the paper (or of its
// control-flow generalization) it becomes. docs/import.md has one row per entry
// of this table, saying which construct, and a test checks that every entry has
// its row.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tfsem::graphdef {

enum class Lowering : std::uint8_t {
  variable,       // VariableV2, Variable, VarHandleOp: Var(x) and a variable x
  read,           // ReadVariableOp, and Identity of a reference: Read
  assign,         // Assign, AssignAdd, AssignSub and the resource forms: Assign-f
  gradient_step,  // ApplyGradientDescent: Assign-Sub of alpha * delta, or Read, Sub, Write
  update,         // other updates of variables (ApplyAdam, ScatterAdd, ...): Assign-f or Read, f, Write
  is_initialized, // VarIsInitializedOp: Read, then IsInitialized of the value (S-ISINIT)
  destroy,        // DestroyResourceOp: Assign-Uninitialize (S-DESTROY)
  constant,       // Const: the value on its consumers' input edges
  placeholder,    // Placeholder: an input edge to feed
  no_op,          // NoOp: a node with control edges only
  identity,       // Identity, StopGradient, CheckNumerics, ...: Identity
  print,          // Print: its first input, after its data (Snd)
  function,       // a registry function: Add, Mul, MatMul, ...
  control_flow,   // Switch, Merge, Enter, Exit, NextIteration, LoopCond and Ref forms
  rendezvous,     // _Send and _Recv of a partitioned graph: Send and Recv, paired by their key (I-RENDEZVOUS)
  uninterpreted,  // anything else: an uninterpreted function named after the op
};

struct OpRule {
  std::string_view op;
  Lowering lowering;
  std::string_view target;  // the tfsem op (function, Assign-f, control-flow op), or ""
  int data_inputs = -1;     // the number of data inputs it takes; -1: one or more
  int outputs = -1;         // its number of outputs; -1: as many as its consumers use
  std::vector<int> handles{};  // the inputs that are variables (a reference or a resource handle)
};

// Every op with a rule of its own, in the order of docs/import.md.
const std::vector<OpRule>& op_rules();
const OpRule* find_rule(std::string_view op);

// An op tfsem does not model: whether it updates the variables it takes (by
// its name: Apply*, Scatter*, *Assign*, CountUpTo), and whether it has state
// of its own that an uninterpreted function leaves out (random numbers, the
// Stateful* and Rng* ops of tf.random.Generator, queues, readers, iterators,
// tables, TensorArrays, Assert).
bool updates_variables(std::string_view op);
bool stateful(std::string_view op);

}  // namespace tfsem::graphdef
