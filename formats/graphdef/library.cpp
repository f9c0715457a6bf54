#include "formats/graphdef/library.hpp"

#include "semantics/diagnostic.hpp"
#include "formats/graphdef/op_table.hpp"

#include <algorithm>

namespace tfsem::graphdef {

namespace {

// The output args of the control-flow ops with more than one; every other op
// tfsem interprets has one output arg, its outputs the arg's elements.
const std::vector<std::string>* output_args(std::string_view op) {
  static const std::vector<std::string> switch_args = {"output_false", "output_true"}, merge_args = {"output", "value_index"};
  if (op == "Switch" || op == "RefSwitch") return &switch_args;
  if (op == "Merge" || op == "RefMerge") return &merge_args;
  return nullptr;
}

// If, Case and While, and their Stateless forms: lowered by functional.cpp.
bool functional(std::string_view op) {
  if (op.starts_with("Stateless")) op.remove_prefix(9);
  return op == "If" || op == "Case" || op == "While";
}

bool takes_values(const OpDef& signature) {
  const auto value = [](const OpDef::ArgDef& a) { return !a.is_ref() && a.type() != DT_RESOURCE; };
  return signature.input_arg_size() > 0 && signature.output_arg_size() > 0 &&
         std::all_of(signature.input_arg().begin(), signature.input_arg().end(), value) &&
         std::all_of(signature.output_arg().begin(), signature.output_arg().end(), value);
}

}  // namespace

Library::Library(const FunctionDefLibrary& library) {
  for (const auto& f : library.function()) by_name_.emplace(f.signature().name(), &f);
  // The functions whose bodies compute on values, less those calling one that
  // does not, until none is left to remove (recursion stays in).
  for (const auto& [name, f] : by_name_) {
    if (std::any_of(f->node_def().begin(), f->node_def().end(), [](const NodeDef& n) { return functional(n.op()); }))
      lowered_.insert(name);
    if (takes_values(f->signature()) &&
        std::all_of(f->node_def().begin(), f->node_def().end(),
                    [&](const NodeDef& n) { return computes_on_values(n) || !called(n).empty(); }))
      interpreted_.insert(name);
  }
  // A function calling one the import lowers is lowered with it (inlined, unless recursive).
  for (bool changed = true; changed;) {
    changed = false;
    for (const auto& [name, f] : by_name_)
      if (!lowered_.count(name) && std::any_of(f->node_def().begin(), f->node_def().end(), [&](const NodeDef& n) {
            const auto gs = called(n);
            return std::any_of(gs.begin(), gs.end(), [&](const FunctionDef* g) { return g != nullptr && lowered(*g); });
          })) {
        lowered_.insert(name);
        changed = true;
      }
  }
  for (bool changed = true; changed;) {
    changed = false;
    for (auto it = interpreted_.begin(); it != interpreted_.end();) {
      const auto& body = by_name_.at(*it)->node_def();
      const bool calls_other = std::any_of(body.begin(), body.end(), [&](const NodeDef& n) {
        const auto gs = called(n);
        return std::any_of(gs.begin(), gs.end(), [&](const FunctionDef* g) { return g == nullptr || !interpreted(*g); });
      });
      it = calls_other ? (changed = true, interpreted_.erase(it)) : std::next(it);
    }
  }
  find_recursive();
}

void Library::find_recursive() {
  std::map<std::string, std::set<std::string>, std::less<>> calls;
  for (const auto& [name, f] : by_name_)
    for (const auto& n : f->node_def()) {
      if (const auto* g = callee(n)) calls[name].insert(g->signature().name());
      for (const auto& [key, value] : n.attr()) {
        if (value.has_func()) calls[name].insert(value.func().name());
        for (const auto& g : value.list().func()) calls[name].insert(g.name());
      }
    }
  for (const auto& [name, f] : by_name_) {
    std::set<std::string> seen;
    std::vector<std::string> todo(calls[name].begin(), calls[name].end());
    while (!todo.empty() && !seen.count(name)) {
      const auto g = todo.back();
      todo.pop_back();
      if (!seen.insert(g).second) continue;
      if (const auto it = calls.find(g); it != calls.end()) todo.insert(todo.end(), it->second.begin(), it->second.end());
    }
    if (seen.count(name)) recursive_.insert(name);
  }
}

const FunctionDef* Library::find(std::string_view name) const {
  const auto it = by_name_.find(name);
  return it == by_name_.end() ? nullptr : it->second;
}

const FunctionDef* Library::callee(const NodeDef& node) const {
  if (node.op() != "PartitionedCall" && node.op() != "StatefulPartitionedCall") return find(node.op());
  const auto f = node.attr().find("f");
  return f == node.attr().end() || !f->second.has_func() ? nullptr : find(f->second.func().name());
}

std::vector<const FunctionDef*> Library::called(const NodeDef& node) const {
  if (const auto* g = callee(node)) return {g};
  std::vector<const FunctionDef*> out;
  if (!functional(node.op())) return out;
  for (const auto& [key, value] : node.attr()) {
    if (value.has_func()) out.push_back(find(value.func().name()));
    for (const auto& g : value.list().func()) out.push_back(find(g.name()));
  }
  return out;
}

bool Library::computes_on_values(const NodeDef& node) const {
  const auto* rule = find_rule(node.op());
  if (rule == nullptr || node.op().starts_with("Ref")) return false;
  switch (rule->lowering) {
    case Lowering::constant:
    case Lowering::no_op:
    case Lowering::identity:
    case Lowering::print:
    case Lowering::control_flow: return true;
    case Lowering::function: {  // a transposed MatMul is uninterpreted
      const auto transposed = [&](const char* key) {
        const auto a = node.attr().find(key);
        return a != node.attr().end() && a->second.b();
      };
      return !transposed("transpose_a") && !transposed("transpose_b");
    }
    default: return false;
  }
}

std::optional<int> Library::port(const NodeDef& node, const std::string& out_arg, int index) const {
  std::vector<std::string> names;
  if (const auto* g = callee(node)) {
    for (const auto& a : g->signature().output_arg()) names.push_back(a.name());
    if (node.op() != g->signature().name()) names = {"output"};  // a PartitionedCall's outputs are one list
  } else if (const auto* args = output_args(node.op())) {
    names = *args;
  } else {
    return index;
  }
  const auto it = std::find(names.begin(), names.end(), out_arg);
  if (it == names.end()) return std::nullopt;
  return static_cast<int>(it - names.begin()) + index;
}

Library::Body Library::body(const FunctionDef& f) const {
  const auto& fname = f.signature().name();
  Body out;
  for (const auto& a : f.signature().input_arg()) {
    auto* n = out.graph.add_node();
    n->set_name(a.name());
    n->set_op("Placeholder");
    (*n->mutable_attr())["dtype"].set_type(a.type());
  }
  std::map<std::string, const NodeDef*, std::less<>> nodes;
  for (const auto& n : f.node_def()) nodes.emplace(n.name(), &n);
  // "node:output_arg:index" as "node:port"; an argument, and "^node", as they are.
  const auto rewrite = [&](const std::string& text, const std::string& where, const std::string& subject) {
    const auto fail = [&](const std::string& message) { throw InputError("I-NODE", where, subject, message); };
    const auto first = text.find(':');
    if (text.starts_with('^') || first == std::string::npos) return text;
    const auto second = text.find(':', first + 1);
    if (second == std::string::npos) fail("not ARGUMENT, NODE:OUTPUT:INDEX or ^NODE");
    const auto node = text.substr(0, first), out_arg = text.substr(first + 1, second - first - 1);
    const auto index_text = text.substr(second + 1);
    if (index_text.empty() || index_text.size() > 6 ||
        !std::all_of(index_text.begin(), index_text.end(), [](char c) { return c >= '0' && c <= '9'; }))
      fail("the index after '" + node + ":" + out_arg + ":' is not a number");
    const auto it = nodes.find(node);
    if (it == nodes.end()) fail("no node '" + node + "' in the body of '" + fname + "'");
    const auto p = port(*it->second, out_arg, std::stoi(index_text));
    if (!p) fail(it->second->op() + " '" + node + "' has no output '" + out_arg + "'");
    return node + ":" + std::to_string(*p);
  };
  for (int i = 0; i < f.node_def_size(); ++i) {
    const auto& n = f.node_def(i);
    auto* copy = out.graph.add_node();
    *copy = n;
    copy->clear_input();
    for (int k = 0; k < n.input_size(); ++k)
      copy->add_input(rewrite(n.input(k), "function '" + fname + "': node_def " + std::to_string(i) + " '" + n.name() + "'",
                              "input " + std::to_string(k) + " '" + n.input(k) + "'"));
  }
  for (const auto& r : f.signature().output_arg()) {
    const auto where = "function '" + fname + "'";
    const auto it = f.ret().find(r.name());
    if (it == f.ret().end()) throw InputError("I-NODE", where, "result '" + r.name() + "'", "no ret names its output");
    auto result = rewrite(it->second, where, "ret '" + r.name() + "'");
    if (result.find(':') == std::string::npos) result += ":0";
    out.results.push_back(std::move(result));
  }
  return out;
}

}  // namespace tfsem::graphdef
