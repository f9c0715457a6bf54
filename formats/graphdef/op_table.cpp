#include "formats/graphdef/op_table.hpp"

#include <algorithm>
#include <array>

namespace tfsem::graphdef {

namespace {

std::vector<OpRule> make_rules() {
  using L = Lowering;
  std::vector<OpRule> r;
  for (std::string_view op : {"VariableV2", "Variable", "VarHandleOp"}) r.push_back({op, L::variable, "Var", 0, 1});
  r.push_back({"ReadVariableOp", L::read, "Read", 1, 1, {0}});
  r.push_back({"Assign", L::assign, "Write", 2, 1, {0}});
  r.push_back({"AssignAdd", L::assign, "Assign-Add", 2, 1, {0}});
  r.push_back({"AssignSub", L::assign, "Assign-Sub", 2, 1, {0}});
  r.push_back({"AssignVariableOp", L::assign, "Write", 2, 0, {0}});
  r.push_back({"AssignAddVariableOp", L::assign, "Assign-Add", 2, 0, {0}});
  r.push_back({"AssignSubVariableOp", L::assign, "Assign-Sub", 2, 0, {0}});
  r.push_back({"VarIsInitializedOp", L::is_initialized, "IsInitialized", 1, 1, {0}});
  r.push_back({"DestroyResourceOp", L::destroy, "Assign-Uninitialize", 1, 0, {0}});
  r.push_back({"ApplyGradientDescent", L::gradient_step, "Assign-Sub", 3, 1, {0}});
  r.push_back({"ResourceApplyGradientDescent", L::gradient_step, "Assign-Sub", 3, 0, {0}});
  r.push_back({"ApplyMomentum", L::update, "", 5, 1, {0, 1}});
  r.push_back({"ResourceApplyMomentum", L::update, "", 5, 0, {0, 1}});
  r.push_back({"ApplyAdam", L::update, "", 10, 1, {0, 1, 2}});
  r.push_back({"ResourceApplyAdam", L::update, "", 10, 0, {0, 1, 2}});
  r.push_back({"Const", L::constant, "Const", 0, 1});
  for (std::string_view op : {"Placeholder", "PlaceholderV2"}) r.push_back({op, L::placeholder, "", 0, 1});
  r.push_back({"NoOp", L::no_op, "NoOp", 0, 0});
  for (std::string_view op : {"Identity", "StopGradient", "CheckNumerics", "Snapshot", "PreventGradient", "PlaceholderWithDefault"})
    r.push_back({op, L::identity, "Identity", 1, 1});
  r.push_back({"Print", L::print, "Snd", -1, 1});
  const std::array<std::pair<std::string_view, std::string_view>, 13> functions = {{
      {"Add", "Add"}, {"AddV2", "Add"}, {"Sub", "Sub"}, {"Mul", "Mul"}, {"RealDiv", "Div"}, {"Div", "Div"},
      {"Less", "Less"}, {"Equal", "Equal"}, {"Neg", "Neg"}, {"Square", "Square"}, {"Sigmoid", "Sigmoid"},
      {"Relu", "Relu"}, {"MatMul", "MatMul"}}};
  for (const auto& [op, fn] : functions) {
    const bool unary = fn == "Neg" || fn == "Square" || fn == "Sigmoid" || fn == "Relu";
    r.push_back({op, L::function, fn, unary ? 1 : 2, 1});
  }
  const auto ref = [](std::string_view op) { return op.starts_with("Ref") ? std::vector{0} : std::vector<int>{}; };
  for (std::string_view op : {"Switch", "RefSwitch"}) r.push_back({op, L::control_flow, op, 2, 2, ref(op)});
  for (std::string_view op : {"Merge", "RefMerge"}) r.push_back({op, L::control_flow, op, -1, 2});
  for (std::string_view op : {"Enter", "Exit", "NextIteration", "RefEnter", "RefExit", "RefNextIteration", "RefIdentity"})
    r.push_back({op, L::control_flow, op, 1, 1, ref(op)});
  r.push_back({"LoopCond", L::control_flow, "LoopCond", 1, 1});
  for (std::string_view op : {"_Send", "_HostSend"}) r.push_back({op, L::rendezvous, "Send", 1, 1});
  for (std::string_view op : {"_Recv", "_HostRecv"}) r.push_back({op, L::rendezvous, "Recv", 0, 1});
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
         starts(op, {"Stateful", "Rng"}) ||
         op == "TruncatedNormal" || op == "Multinomial" || op == "ParameterizedTruncatedNormal" || op == "Assert" ||
         op == "PrintV2";
}

}  // namespace tfsem::graphdef
