#include "semantics/format/graphdef/op_table.hpp"

#include <algorithm>
#include <array>

namespace tfsem::graphdef {

namespace {

std::vector<OpRule> make_rules() {
  using L = Lowering;
  std::vector<OpRule> r;
  auto add = [&](OpRule rule) { r.push_back(std::move(rule)); };
  for (std::string_view op : {"VariableV2", "Variable"})
    add({op, L::variable, "Var", 0, 1, {}, "Var(x), one per consumer of the reference, and a variable x (initially uninitialized)"});
  add({"VarHandleOp", L::variable, "Var", 0, 1, {}, "Var(x), one per consumer of the handle, and a variable x"});
  add({"ReadVariableOp", L::read, "Read", 1, 1, {0}, "Read: a snapshot of VarValue(x)"});
  add({"Assign", L::assign, "Write", 2, 1, {0}, "Write (Assign-Snd); its output is x after the write"});
  add({"AssignAdd", L::assign, "Assign-Add", 2, 1, {0}, "Assign-Add; its output is x after the update"});
  add({"AssignSub", L::assign, "Assign-Sub", 2, 1, {0}, "Assign-Sub; its output is x after the update"});
  add({"AssignVariableOp", L::assign, "Write", 2, 0, {0}, "Write (Assign-Snd)"});
  add({"AssignAddVariableOp", L::assign, "Assign-Add", 2, 0, {0}, "Assign-Add"});
  add({"AssignSubVariableOp", L::assign, "Assign-Sub", 2, 0, {0}, "Assign-Sub"});
  add({"ApplyGradientDescent", L::gradient_step, "Assign-Sub", 3, 1, {0},
       "Mul(alpha, delta), then Assign-Sub with use_locking; without it, Read, Sub and Write: a read-compute-write that is not atomic"});
  add({"ResourceApplyGradientDescent", L::gradient_step, "Assign-Sub", 3, 0, {0}, "as ApplyGradientDescent"});
  add({"ApplyMomentum", L::update, "", 5, 1, {0, 1},
       "with use_locking, one Assign-f per variable (var, accum), f uninterpreted; without it, Reads, one uninterpreted f with a result per variable, and Writes"});
  add({"ResourceApplyMomentum", L::update, "", 5, 0, {0, 1}, "as ApplyMomentum"});
  add({"ApplyAdam", L::update, "", 10, 1, {0, 1, 2}, "as ApplyMomentum, for var, m and v"});
  add({"ResourceApplyAdam", L::update, "", 10, 0, {0, 1, 2}, "as ApplyMomentum, for var, m and v"});
  add({"Const", L::constant, "", 0, 1, {},
       "its value on the input edge of each consumer; a Const node when it has control inputs (inside a loop) or is fetched"});
  for (std::string_view op : {"Placeholder", "PlaceholderV2"})
    add({op, L::placeholder, "", 0, 1, {}, "an input edge named after it, whose value --feed gives; refused when needed and not fed"});
  add({"NoOp", L::no_op, "NoOp", 0, 0, {}, "NoOp: a node with control edges only (tf.group)"});
  add({"Identity", L::identity, "Identity", 1, 1, {},
       "Identity; of a reference (x/read), Read; of a resource handle, RefIdentity"});
  for (std::string_view op : {"StopGradient", "CheckNumerics", "Snapshot", "PreventGradient", "PlaceholderWithDefault"})
    add({op, L::identity, "Identity", 1, 1, {}, "Identity: the value passes through"});
  add({"Print", L::print, "Snd", -1, 1, {}, "Snd(data_k, ... Snd(data_1, x)): x passes through once the data is there"});
  const std::array<std::pair<std::string_view, std::string_view>, 13> functions = {{
      {"Add", "Add"}, {"AddV2", "Add"}, {"Sub", "Sub"}, {"Mul", "Mul"}, {"RealDiv", "Div"}, {"Div", "Div"},
      {"Less", "Less"}, {"Equal", "Equal"}, {"Neg", "Neg"}, {"Square", "Square"}, {"Sigmoid", "Sigmoid"},
      {"Relu", "Relu"}, {"MatMul", "MatMul"}}};
  for (const auto& [op, fn] : functions) {
    const bool unary = fn == "Neg" || fn == "Square" || fn == "Sigmoid" || fn == "Relu";
    add({op, L::function, fn, unary ? 1 : 2, 1, {},
         op == "MatMul" ? "MatMul when neither input is transposed; otherwise uninterpreted (tf.MatMul)" : "the registry's function"});
  }
  add({"Switch", L::control_flow, "Switch", 2, 2, {}, "Switch (C-SWITCH); RefSwitch on a reference or resource handle"});
  add({"RefSwitch", L::control_flow, "RefSwitch", 2, 2, {0}, "RefSwitch"});
  add({"Merge", L::control_flow, "Merge", -1, 2, {}, "Merge (C-MERGE); RefMerge on references"});
  add({"RefMerge", L::control_flow, "RefMerge", -1, 2, {}, "RefMerge"});
  add({"Enter", L::control_flow, "Enter", 1, 1, {},
       "Enter (C-ENTER) with frame_name, is_constant and parallel_iterations; RefEnter on a resource handle"});
  add({"RefEnter", L::control_flow, "RefEnter", 1, 1, {0}, "RefEnter: the variable into the loop frame"});
  add({"Exit", L::control_flow, "Exit", 1, 1, {}, "Exit (C-EXIT)"});
  add({"RefExit", L::control_flow, "RefExit", 1, 1, {0}, "RefExit"});
  add({"NextIteration", L::control_flow, "NextIteration", 1, 1, {}, "NextIteration (C-NEXT)"});
  add({"RefNextIteration", L::control_flow, "RefNextIteration", 1, 1, {0}, "RefNextIteration"});
  add({"LoopCond", L::control_flow, "LoopCond", 1, 1, {}, "LoopCond"});
  add({"RefIdentity", L::control_flow, "RefIdentity", 1, 1, {0}, "RefIdentity (C-REF)"});
  return r;
}

bool starts(std::string_view op, std::initializer_list<std::string_view> prefixes) {
  return std::any_of(prefixes.begin(), prefixes.end(), [&](std::string_view p) { return op.starts_with(p); });
}

bool has(std::string_view op, std::initializer_list<std::string_view> parts) {
  return std::any_of(parts.begin(), parts.end(), [&](std::string_view p) { return op.find(p) != std::string_view::npos; });
}

}  // namespace

const std::vector<OpRule>& op_rules() {
  static const std::vector<OpRule> rules = make_rules();
  return rules;
}

const OpRule* find_rule(std::string_view op) {
  const auto& rules = op_rules();
  const auto it = std::find_if(rules.begin(), rules.end(), [&](const OpRule& r) { return r.op == op; });
  return it == rules.end() ? nullptr : &*it;
}

bool updates_variables(std::string_view op) {
  return starts(op, {"Apply", "ResourceApply", "SparseApply", "ResourceSparseApply", "Scatter", "ResourceScatter"}) ||
         has(op, {"Assign", "CountUpTo"});
}

bool stateful(std::string_view op) {
  return has(op, {"Random", "Queue", "Reader", "Iterator", "TensorArray", "Stack", "Table", "Barrier", "CountUpTo"}) ||
         op == "TruncatedNormal" || op == "Multinomial" || op == "ParameterizedTruncatedNormal" || op == "Assert" ||
         op == "PrintV2";
}

}  // namespace tfsem::graphdef
