#include "semantics/ops.hpp"

#include <algorithm>

namespace tfsem {

namespace {

std::vector<OpDef> make_control_ops() {
  const std::vector<AttrSpec> enter_attrs = {{kFrameAttr, AttrType::string, true},
                                             {kConstantAttr, AttrType::boolean, false},
                                             {kParallelIterationsAttr, AttrType::integer, false}};
  struct Form {
    std::string_view name, ref_name;
    OpKind kind;
    std::string_view doc;
  };
  const Form forms[] = {
      {"Switch", "RefSwitch", OpKind::switch_,
       "Switch(data, pred): data to output 1 when pred is true, to output 0 when false; DEAD to the other"},
      {"Merge", "RefMerge", OpKind::merge,
       "Merge(d_1..d_k): the one live input on output 0, its index on output 1; DEAD when every input is"},
      {"Enter", "RefEnter", OpKind::enter,
       "Enter(frame): its input into iteration 0 of the child frame (into every iteration, if is_constant)"},
      {"Exit", "RefExit", OpKind::exit, "Exit: its input back to the parent frame, once"},
      {"NextIteration", "RefNextIteration", OpKind::next_iteration,
       "NextIteration: its input into the next iteration of the frame; DEAD stops here"},
  };
  std::vector<OpDef> ops;
  for (const auto& f : forms) {
    const auto attrs = f.kind == OpKind::enter ? enter_attrs : std::vector<AttrSpec>{};
    ops.push_back({f.name, f.kind, false, attrs, f.doc});
    ops.push_back({f.ref_name, f.kind, true, attrs, f.doc});
  }
  ops.push_back({"RefIdentity", OpKind::ref_identity, true, {}, "RefIdentity: the variable handle, passed on"});
  const std::vector<AttrSpec> call_attrs = {{kFunctionAttr, AttrType::string, true}, {kSiteAttr, AttrType::integer, true}};
  ops.push_back({"Call", OpKind::call, false, call_attrs,
                 "Call(function, site): its argument into the function's frame, the site appended to the tag; "
                 "a DEAD argument makes no call and goes to the site's Return"});
  ops.push_back({"Return", OpKind::return_, false, call_attrs,
                 "Return(function, site): the result of the call made at the site, back in the caller's context"});
  ops.push_back({"Send", OpKind::send, false, {},
                 "Send: its input (a tensor, or the value of the variable on its variable edge) into the rendezvous, "
                 "the tensor edge to its Recv named by the pair's key; DEAD passes"});
  ops.push_back({"Recv", OpKind::recv, false, {},
                 "Recv: the value its Send put in the rendezvous, on each of its outputs (every consumer on its device)"});
  return ops;
}

}  // namespace

const std::vector<OpDef>& control_ops() {
  static const std::vector<OpDef> ops = make_control_ops();
  return ops;
}

const OpDef* find_control_op(std::string_view name) {
  const auto& ops = control_ops();
  const auto it = std::find_if(ops.begin(), ops.end(), [&](const OpDef& d) { return d.name == name; });
  return it == ops.end() ? nullptr : &*it;
}

const std::vector<AttrSpec>* attr_specs(std::string_view op) {
  static const std::vector<AttrSpec> none;
  if (const auto* c = find_control_op(op)) return &c->attrs;
  if (op == "Var" || op == "Read" || op == "Write") return &none;
  const auto fname = op.starts_with("Assign-") ? op.substr(7) : op;
  if (const auto* f = Registry::builtin().find(fname)) return &f->attrs;
  return nullptr;
}

}  // namespace tfsem
