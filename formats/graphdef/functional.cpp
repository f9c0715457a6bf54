#include "formats/graphdef/functional.hpp"

#include "semantics/diagnostic.hpp"

#include <set>

namespace tfsem::graphdef {

namespace {

// "x" as "x:0", "x:1" as it is.
std::string output_key(const std::string& text) { return text.find(':') == std::string::npos ? text + ":0" : text; }

std::string node_of(const std::string& text) {
  const auto s = text.starts_with('^') ? text.substr(1) : text;
  return s.substr(0, s.find(':'));
}

std::string port(const std::string& node, std::size_t k) { return node + ":" + std::to_string(k); }

struct Inputs {
  std::vector<std::string> data, control;  // control: node names, without '^'
};

Inputs inputs_of(const NodeDef& n) {
  Inputs in;
  for (const auto& t : n.input()) (t.starts_with('^') ? in.control : in.data).push_back(t.starts_with('^') ? t.substr(1) : t);
  return in;
}

class Flattener {
 public:
  Flattener(const GraphDef& graph, const Library& library, const std::vector<std::string>& fetches)
      : library_(library), g_(graph) {
    for (const auto& n : g_.node()) {
      names_.insert(n.name());
      for (const auto& t : n.input())
        if (t.starts_with('^')) waited_.insert(t.substr(1));
    }
    for (const auto& f : fetches)
      if (f.find(':') == std::string::npos) waited_.insert(f);  // a target: the op runs
  }

  Flattened run(const std::vector<std::string>& fetches, const StopToken* stop) {
    StopPoll poll(stop, 64);
    for (int i = 0; i < g_.node_size(); ++i) {  // the nodes added are expanded in turn
      poll.tick_check();
      expand(i);
    }
    Flattened out;
    out.graph.CopyFrom(g_);
    out.graph.clear_node();
    for (int i = 0; i < g_.node_size(); ++i) {
      if (removed_.count(i)) continue;
      auto* n = out.graph.add_node();
      *n = g_.node(i);
      for (auto& t : *n->mutable_input())
        if (!t.starts_with('^')) t = resolve(t);
    }
    for (const auto& f : fetches)
      if (f.find(':') != std::string::npos)
        if (const auto r = resolve(f); r != f) out.fetches.emplace(f, r);
    out.units = std::move(units_);
    const auto list = [](const std::map<std::string, int>& counts) {
      std::string s;
      for (const auto& [what, n] : counts) s += (s.empty() ? "" : ", ") + what + " x" + std::to_string(n);
      return s;
    };
    if (!inlined_.empty())
      out.notes.push_back("functions inlined at their call sites, the body's nodes named after the call (I-CALL): " +
                          list(inlined_));
    if (!lowered_.empty())
      out.notes.push_back("functional ops lowered to Switch and Merge, loops to frames (I-CALL): " + list(lowered_));
    if (!resource_loop_vars_.empty())
      out.notes.push_back("resource loop variables entering their loop as constants (one variable in every iteration): " +
                          list(resource_loop_vars_));
    return out;
  }

 private:
  const Library& library_;
  GraphDef g_;
  std::set<std::string> names_;   // every node's, the removed ones' too
  std::set<std::string> waited_;  // the nodes a control input or a target names
  std::set<std::string> forced_;  // the calls a lowering made: inlined unless recursive
  std::set<int> removed_;
  std::map<std::string, std::string> renames_;  // "op:k" -> the output standing for it
  std::map<std::string, std::size_t> unit_of_;
  std::vector<std::vector<std::string>> units_;
  std::map<std::string, int> inlined_, lowered_, resource_loop_vars_;

  std::string resolve(const std::string& text) const {
    auto key = output_key(text);
    for (auto it = renames_.find(key); it != renames_.end(); it = renames_.find(key)) key = output_key(it->second);
    return key == output_key(text) ? text : key;
  }

  static std::string where(int i, const NodeDef& n) { return "node " + std::to_string(i) + " '" + n.name() + "'"; }

  std::string fresh(const std::string& base) {
    auto name = base;
    for (int k = 1; names_.count(name); ++k) name = base + "_" + std::to_string(k);
    names_.insert(name);
    return name;
  }

  std::size_t unit(const std::string& name) {
    if (const auto it = unit_of_.find(name); it != unit_of_.end()) return it->second;
    units_.emplace_back();
    return unit_of_[name] = units_.size() - 1;
  }

  NodeDef* add(NodeDef node, std::size_t u) {
    names_.insert(node.name());
    for (const auto& t : node.input())
      if (t.starts_with('^')) waited_.insert(t.substr(1));
    unit_of_[node.name()] = u;
    units_[u].push_back(node.name());
    auto* n = g_.add_node();
    *n = std::move(node);
    return n;
  }

  // A node `name` of `op` taking `data` and control inputs `control`.
  NodeDef* add(const std::string& name, const std::string& op, const std::vector<std::string>& data,
               const std::vector<std::string>& control, std::size_t u) {
    NodeDef n;
    n.set_name(name);
    n.set_op(op);
    for (const auto& d : data) n.add_input(d);
    for (const auto& c : control) n.add_input("^" + c);
    return add(std::move(n), u);
  }

  // A call of `f` that the lowering makes: inlined in its turn (unless f is recursive).
  std::string call(const std::string& name, const std::string& f, const std::vector<std::string>& data,
                   const std::vector<std::string>& control, std::size_t u) {
    auto* n = add(name, "PartitionedCall", data, control, u);
    (*n->mutable_attr())["f"].mutable_func()->set_name(f);
    forced_.insert(name);
    return name;
  }

  // The node named after op `name` that control edges from it wait for, when one does.
  void finish(const std::string& name, const std::vector<std::string>& done, std::size_t u) {
    if (waited_.count(name)) add(name, "NoOp", {}, done, u);
  }

  const FunctionDef& function_attr(int i, const NodeDef& n, const std::string& key, int element = -1) const {
    const auto it = n.attr().find(key);
    const NameAttrList* func = nullptr;
    if (it != n.attr().end()) {
      if (element < 0 && it->second.has_func()) func = &it->second.func();
      if (element >= 0 && element < it->second.list().func_size()) func = &it->second.list().func(element);
    }
    if (func == nullptr) throw InputError("I-ATTR", where(i, n), "attr '" + key + "'", n.op() + " needs this function");
    const auto* f = library_.find(func->name());
    if (f == nullptr)
      throw InputError("I-ATTR", where(i, n), "attr '" + key + "'", "names '" + func->name() + "', no function of the library");
    return *f;
  }

  void expand(int i) {
    const NodeDef n = g_.node(i);  // a copy: adding nodes moves them
    const auto& op = n.op();
    if (op == "If" || op == "StatelessIf") return lower_if(i, n);
    if (op == "Case" || op == "StatelessCase") return lower_case(i, n);
    if (op == "While" || op == "StatelessWhile") return lower_while(i, n);
    const auto* f = library_.callee(n);
    if (f == nullptr || library_.recursive(*f) || (f->node_def_size() == 0 && f->ret_size() == 0)) return;
    if (forced_.count(n.name()) || !library_.interpreted(*f) || library_.lowered(*f)) inline_call(i, n, *f);
  }

  // ---- Calls: TensorFlow's function inlining ----

  void inline_call(int i, const NodeDef& n, const FunctionDef& f) {
    const auto& sig = f.signature();
    const auto in = inputs_of(n);
    if (static_cast<int>(in.data.size()) != sig.input_arg_size())
      throw InputError("I-ARITY", where(i, n), "",
                       "calls '" + sig.name() + "', which takes " + std::to_string(sig.input_arg_size()) +
                           " arguments, with " + std::to_string(in.data.size()));
    const auto body = library_.body(f);
    const auto u = unit(n.name());
    removed_.insert(i);
    std::map<std::string, std::string> args, names;  // an argument's value; a body node's name here
    for (int k = 0; k < sig.input_arg_size(); ++k) args[sig.input_arg(k).name()] = in.data[static_cast<std::size_t>(k)];
    for (int k = sig.input_arg_size(); k < body.graph.node_size(); ++k)
      names[body.graph.node(k).name()] = fresh(n.name() + "/" + body.graph.node(k).name());
    const auto here = [&](const std::string& node) {
      const auto it = names.find(node);
      if (it == names.end())
        throw InputError("I-NODE", "function '" + sig.name() + "'", "'" + node + "'", "no node or argument of that name");
      return it->second;
    };
    const auto value = [&](const std::string& text) {  // an argument, or "node:port" of the body
      const auto node = node_of(text);
      if (const auto a = args.find(node); a != args.end()) return a->second;
      return here(node) + text.substr(node.size());
    };
    for (int k = sig.input_arg_size(); k < body.graph.node_size(); ++k) {
      NodeDef copy = body.graph.node(k);
      copy.set_name(names.at(copy.name()));
      copy.clear_input();
      std::vector<std::string> control;
      bool inner = false;  // takes a value from another node of the body
      for (const auto& t : body.graph.node(k).input()) {
        const auto node = node_of(t);
        if (t.starts_with('^')) {
          control.push_back(args.count(node) ? node_of(args.at(node)) : here(node));
        } else {
          copy.add_input(value(t));
          inner = inner || !args.count(node);
        }
      }
      if (!inner) control.insert(control.end(), in.control.begin(), in.control.end());
      for (const auto& c : control) copy.add_input("^" + c);
      add(std::move(copy), u);
    }
    std::vector<std::string> done;  // the control_ret nodes and the results
    for (const auto& [key, node] : f.control_ret()) done.push_back(here(node));
    for (std::size_t k = 0; k < body.results.size(); ++k) {
      const auto r = value(body.results[k]);
      renames_[port(n.name(), k)] = r;
      done.push_back(node_of(r));
    }
    if (done.empty()) {
      done = in.control;
      for (const auto& d : in.data) done.push_back(node_of(d));
    }
    finish(n.name(), done, u);
    ++inlined_[sig.name()];
  }

  // ---- Functional control flow: TensorFlow's lowering passes ----

  // The Merge of each output of the branches, and the op's control outputs:
  // a Merge of the pivots waiting for every branch (branch_executed).
  void merge_branches(const NodeDef& n, const std::vector<std::string>& calls, const std::vector<std::string>& pivots,
                      int outputs, std::size_t u) {
    for (int k = 0; k < outputs; ++k) {
      std::vector<std::string> inputs;
      for (const auto& c : calls) inputs.push_back(port(c, static_cast<std::size_t>(k)));
      const auto m = add(fresh(n.name() + "/output_" + std::to_string(k)), "Merge", inputs, {}, u)->name();
      renames_[port(n.name(), static_cast<std::size_t>(k))] = port(m, 0);
    }
    if (!waited_.count(n.name())) return;
    const auto executed = add(fresh(n.name() + "/branch_executed"), "Merge", pivots, calls, u)->name();
    finish(n.name(), {executed}, u);
  }

  void lower_if(int i, const NodeDef& n) {
    const auto in = inputs_of(n);
    if (in.data.empty()) throw InputError("I-ARITY", where(i, n), "", n.op() + " takes a predicate and the branches' inputs");
    const auto& then_f = function_attr(i, n, "then_branch");
    const auto& else_f = function_attr(i, n, "else_branch");
    const auto u = unit(n.name());
    removed_.insert(i);
    const auto& name = n.name();
    const auto& pred = in.data[0];
    const auto sp = add(fresh(name + "/switch_pred"), "Switch", {pred, pred}, in.control, u)->name();
    const auto pivot_t = add(fresh(name + "/pivot_t"), "Identity", {port(sp, 1)}, {}, u)->name();
    const auto pivot_f = add(fresh(name + "/pivot_f"), "Identity", {port(sp, 0)}, {}, u)->name();
    std::vector<std::string> then_in, else_in;
    for (std::size_t k = 1; k < in.data.size(); ++k) {
      const auto s = add(fresh(name + "/input_" + std::to_string(k - 1)), "Switch", {in.data[k], pred},
                         in.control.empty() ? std::vector<std::string>{} : std::vector{sp}, u)
                         ->name();
      then_in.push_back(port(s, 1));
      else_in.push_back(port(s, 0));
    }
    const auto t = call(fresh(name + "/then"), then_f.signature().name(), then_in, {pivot_t}, u);
    const auto e = call(fresh(name + "/else"), else_f.signature().name(), else_in, {pivot_f}, u);
    merge_branches(n, {t, e}, {pivot_t, pivot_f}, then_f.signature().output_arg_size(), u);
    ++lowered_[n.op()];
  }

  // Case as a chain of Switches: branch b runs when the index equals b and no
  // earlier branch ran; the last branch when none did (an index out of range too).
  void lower_case(int i, const NodeDef& n) {
    const auto in = inputs_of(n);
    if (in.data.empty()) throw InputError("I-ARITY", where(i, n), "", n.op() + " takes a branch index and the branches' inputs");
    const auto it = n.attr().find("branches");
    const int count = it == n.attr().end() ? 0 : it->second.list().func_size();
    if (count == 0) throw InputError("I-ATTR", where(i, n), "attr 'branches'", n.op() + " needs one function or more");
    std::vector<const FunctionDef*> branches;
    for (int b = 0; b < count; ++b) branches.push_back(&function_attr(i, n, "branches", b));
    const auto u = unit(n.name());
    removed_.insert(i);
    const auto& name = n.name();
    const auto& index = in.data[0];
    std::vector<std::string> values(in.data.begin() + 1, in.data.end()), pivots, calls;
    std::vector<std::vector<std::string>> branch_inputs;
    std::string rest;  // live when no branch so far ran
    for (int b = 0; b + 1 < count; ++b) {
      const auto suffix = "_" + std::to_string(b);
      auto* c = add(fresh(name + "/branch_index" + suffix), "Const", {}, {node_of(index)}, u);
      (*c->mutable_attr())["dtype"].set_type(DT_INT32);
      auto* t = (*c->mutable_attr())["value"].mutable_tensor();
      t->set_dtype(DT_INT32);
      t->mutable_tensor_shape();
      t->add_int_val(b);
      const auto eq = add(fresh(name + "/equal" + suffix), "Equal", {index, c->name()}, {}, u)->name();
      const auto sp = add(fresh(name + "/switch_pred" + suffix), "Switch", {b == 0 ? eq : rest, eq},
                          b == 0 ? in.control : std::vector<std::string>{}, u)
                          ->name();
      pivots.push_back(add(fresh(name + "/pivot" + suffix), "Identity", {port(sp, 1)}, {}, u)->name());
      rest = port(sp, 0);
      auto& mine = branch_inputs.emplace_back();
      for (std::size_t k = 0; k < values.size(); ++k) {
        const auto s = add(fresh(name + "/input_" + std::to_string(k) + suffix), "Switch", {values[k], eq},
                           b == 0 && !in.control.empty() ? std::vector{sp} : std::vector<std::string>{}, u)
                           ->name();
        mine.push_back(port(s, 1));
        values[k] = port(s, 0);
      }
    }
    const auto last = std::to_string(count - 1);
    pivots.push_back(add(fresh(name + "/pivot_" + last), "Identity", {count == 1 ? index : rest},
                         count == 1 ? in.control : std::vector<std::string>{}, u)
                         ->name());
    branch_inputs.push_back(values);
    for (int b = 0; b < count; ++b) {
      const auto bb = static_cast<std::size_t>(b);
      calls.push_back(call(fresh(name + "/branch_" + std::to_string(b)), branches[bb]->signature().name(), branch_inputs[bb],
                           {pivots[bb]}, u));
    }
    merge_branches(n, calls, pivots, branches[0]->signature().output_arg_size(), u);
    ++lowered_[n.op()];
  }

  // While: a frame named after the op, each loop variable entering it, merged
  // with its NextIteration, switched on LoopCond of the inlined cond, leaving
  // by an Exit; the body inlined between Switch and NextIteration. A resource
  // loop variable (the same variable in every iteration) enters as a constant.
  void lower_while(int i, const NodeDef& n) {
    const auto in = inputs_of(n);
    const auto& cond_f = function_attr(i, n, "cond");
    const auto& body_f = function_attr(i, n, "body");
    const auto& sig = body_f.signature();
    const auto resource = [&](std::size_t k) {
      return static_cast<int>(k) < sig.input_arg_size() && sig.input_arg(static_cast<int>(k)).type() == DT_RESOURCE;
    };
    std::size_t first = in.data.size();  // the first loop variable that is not a resource
    for (std::size_t k = in.data.size(); k-- > 0;)
      if (!resource(k)) first = k;
    if (first == in.data.size())
      throw InputError("I-NODE", where(i, n), "", n.op() + " has no loop variable but resources, which do not change");
    std::int64_t parallel = 10;
    if (const auto p = n.attr().find("parallel_iterations"); p != n.attr().end()) parallel = p->second.i();
    const auto u = unit(n.name());
    removed_.insert(i);
    const auto& name = n.name();
    std::vector<std::string> enter_control;
    if (!in.control.empty()) enter_control.push_back(add(fresh(name + "/LoopControlInputs"), "NoOp", {}, in.control, u)->name());
    std::vector<std::string> values, merges(in.data.size()), nexts(in.data.size()), exits;
    for (std::size_t k = 0; k < in.data.size(); ++k) {
      const auto suffix = "_" + std::to_string(k);
      auto* e = add(fresh(name + "/enter" + suffix), "Enter", {in.data[k]}, enter_control, u);
      auto& attrs = *e->mutable_attr();
      attrs["frame_name"].set_s(name);
      attrs["parallel_iterations"].set_i(parallel);
      attrs["is_constant"].set_b(resource(k));
      if (resource(k)) {
        values.push_back(port(e->name(), 0));
        ++resource_loop_vars_[name];
        continue;
      }
      nexts[k] = fresh(name + "/next_iteration" + suffix);
      merges[k] = add(fresh(name + "/merge" + suffix), "Merge", {e->name(), nexts[k]}, {}, u)->name();
      values.push_back(port(merges[k], 0));
    }
    const auto cond = call(fresh(name + "/cond"), cond_f.signature().name(), values, {merges[first]}, u);
    const auto loop_cond = add(fresh(name + "/LoopCond"), "LoopCond", {port(cond, 0)}, {}, u)->name();
    auto body_in = values;
    std::string body_control;
    for (std::size_t k = 0; k < in.data.size(); ++k) {
      if (resource(k)) {
        renames_[port(name, k)] = in.data[k];
        continue;
      }
      const auto suffix = "_" + std::to_string(k);
      const auto s = add(fresh(name + "/switch" + suffix), "Switch", {values[k], loop_cond}, {}, u)->name();
      exits.push_back(add(fresh(name + "/exit" + suffix), "Exit", {port(s, 0)}, {}, u)->name());
      renames_[port(name, k)] = port(exits.back(), 0);
      body_in[k] = port(s, 1);
      if (k == first) body_control = add(fresh(name + "/loop_body_control"), "Identity", {port(s, 1)}, {}, u)->name();
    }
    const auto body = call(fresh(name + "/body"), sig.name(), body_in, {body_control}, u);
    for (std::size_t k = 0; k < in.data.size(); ++k)
      if (!resource(k)) add(nexts[k], "NextIteration", {port(body, k)}, {}, u);
    finish(name, exits, u);
    ++lowered_[n.op()];
  }
};

}  // namespace

Flattened flatten_functions(const GraphDef& graph, const Library& library, const std::vector<std::string>& fetches,
                            const StopToken* stop) {
  return Flattener(graph, library, fetches).run(fetches, stop);
}

}  // namespace tfsem::graphdef
