#include "formats/graphdef/importer.hpp"

#include "semantics/diagnostic.hpp"
#include "formats/graphdef/functional.hpp"
#include "formats/graphdef/graph_index.hpp"
#include "formats/graphdef/library.hpp"
#include "formats/graphdef/op_table.hpp"
#include "formats/graphdef/tensor_proto.hpp"
#include "formats/graphdef/utf8.hpp"
#include "formats/graphdef/wiring.hpp"

#include <algorithm>
#include <cctype>
#include <map>
#include <set>
#include <unordered_map>
#include <unordered_set>
#include <variant>

namespace tfsem::graphdef {

namespace {

// The variable a reference or a resource handle denotes.
struct Handle {
  std::string var;
  bool resource = false;
  bool alias = false;  // --tf1-refs: a value aliasing a reference's buffer (`x/read`), not a reference
};

// A symbolic atom for a name: an identifier (letters, digits, '_').
std::string atom_name(std::string_view name) {
  std::string out;
  for (char c : name) out += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  if (out.empty() || std::isdigit(static_cast<unsigned char>(out[0]))) out.insert(0, "_");
  return out;
}

// The Ref form tfsem gives a control-flow op that carries a variable.
std::string ref_form(std::string_view op) {
  if (op.starts_with("Ref")) return std::string(op);
  return op == "Identity" ? "RefIdentity" : "Ref" + std::string(op);
}

// The functions of the library tfsem interprets, and those the graph and
// their bodies call: shared by the import of the graph and of each body.
struct Calls {
  Library library;
  std::set<std::string> called;
};

class Importer {
 public:
  // `calls`: null when the graph has no library; `body`: importing a function's body;
  // `flat`: the graph's calls inlined and functional ops lowered (functional.hpp).
  Importer(const GraphDef& graph, const ImportOptions& options, Calls* calls, bool body, const Flattened* flat = nullptr)
      : graph_(graph), poll_(options.stop, 64), index_(graph, options.stop), options_(options), calls_(calls), body_(body) {
    for (const auto& n : index_.nodes()) rules_.push_back(find_rule(n.def->op()));
    passers_.assign(rules_.size(), -1);
    wiring_.reserve(2 * rules_.size());
    if (flat == nullptr) return;
    fetch_outputs_ = flat->fetches;
    for (const auto& unit : flat->units) {
      auto& members = units_.emplace_back();
      for (const auto& member : unit)
        if (const auto i = index_.find(member)) {
          unit_of_.emplace(*i, units_.size() - 1);
          members.push_back(*i);
        }
    }
    out_.notes = flat->notes;
  }

  Imported run(const std::string& name) {
    find_feeds();
    if (options_.initialized) find_initializers();
    pair_rendezvous();
    find_needed();
    poll_.check();
    check_ports();
    if (options_.tf1_refs) find_replaced_buffers();
    poll_.check();
    const std::set<std::string> fetches(options_.fetches.begin(), options_.fetches.end());
    for (const auto& f : fetches)
      if (const auto parsed = GraphIndex::split_output(fetched(f)); parsed && f.find(':') != std::string::npos)
        if (const auto i = index_.find(parsed->first)) fetched_.insert({*i, parsed->second});
    for (std::uint32_t i = 0; i < index_.nodes().size(); ++i) {
      poll_.tick_check();
      if (needed_[i] && !removed_.count(i)) lower(i);
    }
    for (const auto& f : fetches) fetch(f);
    if (!diags_.empty()) throw InputError(std::move(diags_));
    if (calls_ && !body_) import_library();
    out_.spec.name = name;
    out_.spec.description = "imported from a TensorFlow GraphDef";
    declare_variables();
    for (const auto& [var, v] : variables_) out_.spec.variables.push_back(v);
    for (const auto& f : options_.feeds) {
      const auto i = *index_.find(GraphIndex::split_output(f)->first);  // find_feeds checked it
      out_.fed.push_back(consumed_placeholders_.count(i) ? index_.name(i) : "");
    }
    for (const auto& [fname, stateful] : functions_) out_.spec.functions.push_back({fname, stateful, "", ""});
    wiring_.finish(out_.spec, options_.stop);
    place_nodes();
    write_notes();
    return std::move(out_);
  }

 private:
  // Each node keeps the device of the TensorFlow node it models (NodeDef.device,
  // G-DEVICE); a Copy the wiring adds, its value's producer's.
  void place_nodes() {
    std::unordered_map<std::string_view, std::string_view> device;
    for (std::uint32_t i = 0; i < index_.nodes().size(); ++i)
      if (!def(i).device().empty()) device.emplace(where(i), def(i).device());
    if (device.empty()) return;
    auto& nodes = out_.spec.nodes;
    std::unordered_map<std::string_view, std::size_t> copies;
    for (std::size_t k = 0; k < nodes.size(); ++k) {
      if (const auto it = device.find(nodes[k].where.view()); it != device.end()) nodes[k].device = it->second;
      else if (nodes[k].op == "Copy") copies.emplace(nodes[k].id.view(), k);
    }
    // The wiring adds a chain's edges from the producer on: one pass places it.
    std::unordered_map<std::string_view, std::size_t> index;
    for (std::size_t k = 0; k < nodes.size(); ++k) index.emplace(nodes[k].id.view(), k);
    for (const auto& e : out_.spec.edges)
      if (e.from && e.to)
        if (const auto c = copies.find(e.to->node.view()); c != copies.end())
          nodes[c->second].device = nodes[index.at(e.from->node.view())].device;
  }

  const GraphDef& graph_;
  StopPoll poll_{nullptr};
  GraphIndex index_;
  const ImportOptions& options_;
  Calls* calls_;
  bool body_;
  Wiring wiring_;
  Imported out_;
  std::vector<Diagnostic> diags_;
  std::map<std::string, VariableSpec> variables_;
  std::map<std::string, bool> functions_;  // uninterpreted functions, and whether stateful
  std::set<std::uint32_t> removed_;         // initializers left out (--initialized)
  std::vector<bool> needed_;                // by node: what the fetches need (all without fetches)
  std::set<std::uint32_t> fed_;             // the placeholders --feed names
  std::set<std::uint32_t> inputs_;          // the placeholders a signature names
  std::set<std::uint32_t> consumed_placeholders_;  // those whose input edge the run has
  std::set<TfOutput> fetched_;              // the outputs --fetch names
  std::map<std::string, std::string> fetch_outputs_;  // a fetched call's output: the output standing for it
  std::vector<std::vector<std::uint32_t>> units_;      // the nodes of an inlined call or lowered op
  std::map<std::uint32_t, std::size_t> unit_of_;
  std::unordered_map<std::uint32_t, std::uint32_t> send_of_;  // by _Recv: its _Send (I-RENDEZVOUS)
  std::unordered_set<std::uint32_t> paired_sends_;             // the _Send nodes some _Recv takes
  std::vector<const OpRule*> rules_;  // by node
  std::vector<int> passers_;          // by node: passer(i), once known
  std::unordered_map<std::uint64_t, std::optional<Handle>> handles_;  // by key(output)
  std::unordered_set<std::uint64_t> resolving_;
  std::unordered_map<std::uint64_t, Wiring::Source> sources_;
  std::map<std::uint32_t, Tensor> constants_;
  // Instances of the nodes that pass a variable on: instance j serves the j-th
  // consumer of each port (one edge per port, G-FANOUT).
  std::map<std::uint32_t, std::vector<std::string>> instances_;
  std::unordered_map<std::uint64_t, std::uint32_t> next_consumer_;
  std::set<std::uint32_t> instantiating_;
  // Notes.
  std::map<std::string, std::pair<int, bool>> uninterpreted_;  // op -> (nodes, stateful)
  std::map<std::string, int> updates_;
  std::vector<std::string> symbols_, initializers_, dropped_;
  std::size_t restored_ = 0;  // variables starting as restored(x)
  std::set<std::string> dereferencing_;  // --tf1-refs: the functions that dereference a variable (S-DEREF)
  std::set<std::string> replaced_;       // --tf1-refs: variables whose buffer an Assign may replace
  std::vector<std::string> snapshots_;   // --tf1-refs: the reads of a reference kept as snapshots

  // ---- Facts about TF nodes ----

  const NodeDef& def(std::uint32_t i) const { return *index_.node(i).def; }
  const std::string& name(std::uint32_t i) const { return index_.name(i); }
  const std::string& where(std::uint32_t i) const { return index_.node(i).where; }
  const std::string& op(std::uint32_t i) const { return def(i).op(); }

  [[noreturn]] void fail(const std::string& rule, std::uint32_t i, const std::string& subject, const std::string& message) {
    throw InputError(rule, where(i), subject, message);
  }

  const AttrValue* attr(std::uint32_t i, const std::string& key, AttrValue::ValueCase kind, bool required) {
    const auto it = def(i).attr().find(key);
    if (it == def(i).attr().end()) {
      if (required) fail("I-ATTR", i, "attr '" + key + "'", op(i) + " needs this attribute");
      return nullptr;
    }
    if (it->second.value_case() != kind) {
      static const std::map<AttrValue::ValueCase, std::string> names = {
          {AttrValue::kS, "a string (s)"}, {AttrValue::kI, "an integer (i)"}, {AttrValue::kB, "a bool (b)"},
          {AttrValue::kTensor, "a tensor"}, {AttrValue::kType, "a type"}};
      fail("I-ATTR", i, "attr '" + key + "'", "must be " + names.at(kind));
    }
    if (kind == AttrValue::kS && !valid_utf8(it->second.s()))
      fail("I-ATTR", i, "attr '" + key + "'", "is not valid UTF-8 text, and tfsem names things by it");
    return &it->second;
  }
  bool flag(std::uint32_t i, const std::string& key) {
    const auto* a = attr(i, key, AttrValue::kB, false);
    return a && a->b();
  }

  const OpRule* rule(std::uint32_t i) const { return rules_[i]; }
  static std::uint64_t key(TfOutput o) { return std::uint64_t{o.node} << 32 | o.port; }

  // How many outputs node i has: its rule's number, one for an update of a
  // variable tfsem does not model (the variable once updated), else as many as read.
  std::optional<std::uint32_t> outputs_of(std::uint32_t i) {
    if (const auto* r = rule(i); r && r->outputs >= 0) return static_cast<std::uint32_t>(r->outputs);
    if (updates(i)) return 1U;
    return std::nullopt;
  }
  std::string outputs_text(std::uint32_t i) {
    const auto n = *outputs_of(i);
    return op(i) + " '" + name(i) + "' has " + std::to_string(n) + " output" + (n == 1 ? "" : "s");
  }

  // The output a fetch reads: a call's output is the one standing for it.
  // By reference: callers split it into views that must outlive the call.
  const std::string& fetched(const std::string& text) const {
    const auto it = fetch_outputs_.find(text);
    return it == fetch_outputs_.end() ? text : it->second;
  }

  // Whether a consumer or a fetch reads output o.
  bool used(TfOutput o) const { return index_.consumed(o) || fetched_.count(o) != 0; }
  std::uint32_t outputs_used(std::uint32_t i) const {
    auto n = index_.ports_used(i);
    for (auto it = fetched_.lower_bound({i, 0}); it != fetched_.end() && it->node == i; ++it) n = std::max(n, it->port + 1);
    return n;
  }

  // Whether node i passes a variable on: a Ref control-flow op, or a plain one
  // on a resource handle.
  bool passer(std::uint32_t i) {
    if (passers_[i] < 0) passers_[i] = is_passer(i) ? 1 : 0;
    return passers_[i] == 1;
  }
  bool is_passer(std::uint32_t i) {
    const auto* r = rule(i);
    if (!r || (r->lowering != Lowering::control_flow && r->lowering != Lowering::identity)) return false;
    const auto& o = op(i);
    if (o == "RefSwitch" || o == "RefMerge" || o == "RefEnter" || o == "RefExit" || o == "RefNextIteration" ||
        o == "RefIdentity")
      return true;
    if (o != "Switch" && o != "Merge" && o != "Enter" && o != "Exit" && o != "NextIteration" && o != "Identity") return false;
    const auto& in = index_.node(i).inputs;
    if (o == "Identity" && options_.tf1_refs) {  // `x/read` under --tf1-refs: an alias of the reference
      const auto h = handle(in[0]);
      return h && !h->resource && !replaced_.count(h->var);
    }
    return std::any_of(in.begin(), in.end(), [&](TfOutput src) {
      const auto h = handle(src);
      return h && h->resource;
    });
  }

  bool updates(std::uint32_t i) {
    const auto* r = rule(i);
    if (r) return r->lowering == Lowering::assign || r->lowering == Lowering::gradient_step || r->lowering == Lowering::update;
    const auto& in = index_.node(i).inputs;
    return updates_variables(op(i)) && std::any_of(in.begin(), in.end(), [&](TfOutput s) { return reference(s).has_value(); });
  }

  // The variable output o denotes as a reference or handle, which an op may
  // update; not an alias (`x/read` under --tf1-refs), which is a value.
  std::optional<Handle> reference(TfOutput o) {
    auto h = handle(o);
    if (h && h->alias) return std::nullopt;
    return h;
  }

  // The variable an output denotes, if it is a reference or a resource handle.
  std::optional<Handle> handle(TfOutput o) {
    if (auto it = handles_.find(key(o)); it != handles_.end()) return it->second;
    if (!resolving_.insert(key(o)).second) return std::nullopt;  // around a loop: the other inputs decide
    std::optional<Handle> h;
    const auto* r = rule(o.node);
    const auto& in = index_.node(o.node).inputs;
    if (r && r->lowering == Lowering::variable) {
      const auto* shared = attr(o.node, "shared_name", AttrValue::kS, false);
      h = Handle{shared && !shared->s().empty() ? shared->s() : name(o.node), op(o.node) == "VarHandleOp"};
    } else if (o.port == 0 && updates(o.node) && (r == nullptr || r->outputs == 1)) {
      for (const auto& src : in)  // an update's output: its (first) variable, once updated
        if (!h) h = reference(src);
    } else if (passer(o.node) && !(op(o.node).ends_with("Merge") && o.port == 1)) {
      for (const auto& src : in)
        if (!h) h = handle(src);
      if (h && !h->resource && options_.tf1_refs && op(o.node) == "Identity") h->alias = true;
    }
    resolving_.erase(key(o));
    return handles_[key(o)] = h;
  }

  std::string var_of(std::uint32_t i, std::uint32_t port) {
    const auto h = reference(index_.node(i).inputs.at(port));
    if (!h)
      fail("I-REF", i, "input " + std::to_string(port),
           op(i) + " updates or reads a variable here, and '" + def(i).input(static_cast<int>(port)) +
               "' is a value, not a reference or resource handle");
    return h->var;
  }

  // ---- Checks before lowering ----

  void check_ports() {
    for (std::uint32_t i = 0; i < index_.nodes().size(); ++i) {
      if (!needed_[i]) continue;
      const auto& n = index_.node(i);
      if (const auto* r = rule(i); r && r->data_inputs >= 0 && static_cast<int>(n.inputs.size()) != r->data_inputs)
        diags_.push_back({"I-ARITY", n.where, "", op(i) + " takes " + std::to_string(r->data_inputs) + " data input" +
                                                      (r->data_inputs == 1 ? "" : "s") + ", not " +
                                                      std::to_string(n.inputs.size())});
      else if (r && r->data_inputs < 0 && n.inputs.empty())
        diags_.push_back({"I-ARITY", n.where, "", op(i) + " takes one data input or more, not none"});
      for (std::size_t k = 0; k < n.inputs.size(); ++k) {
        const auto src = n.inputs[k];
        if (const auto outputs = outputs_of(src.node); outputs && src.port >= *outputs)
          diags_.push_back({"I-NODE", n.where, "input " + std::to_string(k) + " '" + n.def->input(static_cast<int>(k)) + "'",
                            outputs_text(src.node)});
      }
    }
    if (!diags_.empty()) throw InputError(std::move(diags_));
  }

  // ---- Feeds and pruning ----

  // A placeholder: an input edge to feed; a PlaceholderWithDefault too, when
  // fed or a signature's input.
  bool placeholder(std::uint32_t i) const {
    const auto* r = rule(i);
    return (r && r->lowering == Lowering::placeholder) || fed_.count(i) != 0 || inputs_.count(i) != 0;
  }

  // The placeholder `text` names (NAME or NAME:0), or why it names none.
  std::variant<std::uint32_t, std::string> find_placeholder(const std::string& text) const {
    const auto parsed = GraphIndex::split_output(text);
    const auto i = parsed ? index_.find(parsed->first) : std::nullopt;
    if (!i) return "no node '" + std::string(parsed ? parsed->first : text) + "' in the graph";
    if (!placeholder(*i) && op(*i) != "PlaceholderWithDefault")
      return op(*i) + " '" + name(*i) + "' is not a placeholder; tfsem feeds Placeholder and PlaceholderWithDefault";
    if (parsed->second != 0) return op(*i) + " '" + name(*i) + "' has 1 output";
    return *i;
  }

  // I-FEED: each --feed names a placeholder. A signature's input that is not
  // one is computed by the graph, as the note says.
  void find_feeds() {
    for (const auto& f : options_.feeds) {
      const auto found = find_placeholder(f);
      if (const auto* i = std::get_if<std::uint32_t>(&found)) fed_.insert(*i);
      else diags_.push_back({"I-FEED", "--feed", "'" + f + "'", std::get<std::string>(found)});
    }
    if (!diags_.empty()) throw InputError(std::move(diags_));
    for (const auto& in : options_.inputs) {
      const auto found = find_placeholder(in);
      if (const auto* i = std::get_if<std::uint32_t>(&found)) inputs_.insert(*i);
      else out_.notes.push_back("signature input " + in + ", computed by the graph: " + std::get<std::string>(found));
    }
  }

  // The nodes the fetches need, backwards over data and control inputs, as
  // TensorFlow prunes a graph to a run: the others are not imported, nor
  // checked. Not a placeholder's inputs (a fed PlaceholderWithDefault's
  // default), nor an initializer's value (--initialized gives it before the
  // run). Every node without fetches, and in a function's body.
  void find_needed() {
    const auto n = index_.nodes().size();
    needed_.assign(n, options_.fetches.empty() || body_);
    if (needed_.empty() || needed_[0]) return;
    std::vector<std::uint32_t> todo;
    auto need = [&](std::uint32_t i) {
      if (!needed_[i]) {
        needed_[i] = true;
        todo.push_back(i);
      }
    };
    for (const auto& f : options_.fetches)
      if (const auto parsed = GraphIndex::split_output(fetched(f)))
        if (const auto i = index_.find(parsed->first)) need(*i);
    while (!todo.empty()) {
      const auto i = todo.back();
      todo.pop_back();
      if (const auto u = unit_of_.find(i); u != unit_of_.end())  // a call runs its whole body (I-CALL)
        for (const auto j : units_[u->second]) need(j);
      if (placeholder(i)) continue;
      const auto& in = index_.node(i).inputs;
      if (removed_.count(i)) {
        need(in[0].node);  // the variable it initializes
        continue;
      }
      for (const auto& src : in) need(src.node);
      for (auto d : index_.node(i).control) need(d);
      if (const auto send = send_of_.find(i); send != send_of_.end()) need(send->second);
    }
  }

  // I-RENDEZVOUS: each _Recv of a partitioned graph and the _Send with its
  // key, send_device;recv_device;tensor_name, as TensorFlow's rendezvous pairs them.
  void pair_rendezvous() {
    const auto key = [&](std::uint32_t i) {
      return attr(i, "send_device", AttrValue::kS, true)->s() + ";" + attr(i, "recv_device", AttrValue::kS, true)->s() + ";" +
             attr(i, "tensor_name", AttrValue::kS, true)->s();
    };
    const auto is = [&](std::uint32_t i, std::string_view op) {
      return rule(i) != nullptr && rule(i)->lowering == Lowering::rendezvous && rule(i)->target == op;
    };
    std::unordered_map<std::string, std::uint32_t> sends;
    for (std::uint32_t i = 0; i < rules_.size(); ++i)
      if (is(i, "Send") && !sends.emplace(key(i), i).second)
        fail("I-RENDEZVOUS", i, "attr 'tensor_name'", "another _Send has the key '" + key(i) + "'");
    for (std::uint32_t i = 0; i < rules_.size(); ++i) {
      if (!is(i, "Recv")) continue;
      if (const auto it = sends.find(key(i)); it != sends.end()) {
        send_of_.emplace(i, it->second);
        paired_sends_.insert(it->second);
      } else if (!flag(i, "client_terminated")) {  // a client's feed has no _Send here
        fail("I-RENDEZVOUS", i, "attr 'tensor_name'", "no _Send of this graph has the key '" + key(i) +
             "' (a partition of one device: import the graph of every device together)");
      }
    }
  }

  // ---- Variables and their initializers ----

  // Every variable of the graph, whether the run uses it or not: each run of
  // a session has the same VarValue. With `restored`, those no initializer
  // gives a value start as the symbolic value restored(x).
  void declare_variables() {
    for (std::uint32_t i = 0; i < index_.nodes().size(); ++i)
      if (const auto* r = rule(i); r && r->lowering == Lowering::variable) declare_variable(handle({i, 0})->var, i);
    if (!options_.restored) return;
    for (auto& [var, v] : variables_)
      if (!v.init) {
        v.init = Tensor::apply("restored", {Tensor::atom(atom_name(var))});
        ++restored_;
      }
  }

  void declare_variable(const std::string& var, std::uint32_t i) {
    variables_.try_emplace(var, VariableSpec{var, std::nullopt, where(i)});
  }

  // "<variable>/Assign" of a constant (possibly through Identity) initializes the variable.
  void find_initializers() {
    for (std::uint32_t i = 0; i < index_.nodes().size(); ++i) {
      const auto& in = index_.node(i).inputs;
      if ((op(i) != "Assign" && op(i) != "AssignVariableOp") || in.size() != 2 || in[0].port != 0) continue;
      const auto* r = rule(in[0].node);
      if (!r || r->lowering != Lowering::variable || name(i) != name(in[0].node) + "/Assign") continue;
      auto src = in[1];
      while (op(src.node) == "Identity" && index_.node(src.node).inputs.size() == 1) src = index_.node(src.node).inputs[0];
      const auto var = handle(in[0])->var;
      std::string how;
      if (op(src.node) == "Const") {
        const auto value = constant(src.node);
        variables_[var] = {var, value, where(in[0].node)};
        how = value.to_string();
      } else {
        variables_[var] = {var, Tensor::atom(atom_name("init_" + var)), where(in[0].node)};
        how = atom_name("init_" + var) + ", a symbol: '" + name(src.node) + "' is not a constant";
      }
      removed_.insert(i);
      initializers_.push_back(var + " = " + how + " (" + name(i) + ")");
    }
  }

  // --tf1-refs: an Assign that may change its variable's shape (validate_shape
  // false) gives it a new buffer, which the aliases taken before do not see
  // (#3886): that variable's `x/read` stays a snapshot, a Read.
  void find_replaced_buffers() {
    for (std::uint32_t i = 0; i < index_.nodes().size(); ++i)
      if (needed_[i] && op(i) == "Assign" && !index_.node(i).inputs.empty())
        if (const auto* v = attr(i, "validate_shape", AttrValue::kB, false); v && !v->b())
          if (const auto h = reference(index_.node(i).inputs[0])) replaced_.insert(h->var);
  }

  // ---- Values ----

  Tensor constant(std::uint32_t i) {
    if (auto it = constants_.find(i); it != constants_.end()) return it->second;
    return constants_.emplace(i, parse_constant(i)).first->second;
  }

  Tensor parse_constant(std::uint32_t i) {
    const auto* a = attr(i, "value", AttrValue::kTensor, true);
    const auto& where_attr = where(i) + ": attr 'value'";
    if (const auto* d = attr(i, "dtype", AttrValue::kType, false); d && d->type() != a->tensor().dtype())
      fail("I-TENSOR", i, "attr 'dtype'",
           DataType_Name(d->type()) + ", but the value is " + DataType_Name(a->tensor().dtype()));
    if (auto t = to_tensor(a->tensor(), where_attr)) return *t;
    const auto symbol = atom_name(name(i));
    symbols_.push_back("'" + name(i) + "' (" + DataType_Name(a->tensor().dtype()) + ") as " + symbol);
    return Tensor::atom(symbol);
  }

  bool literal(std::uint32_t i) const { return op(i) == "Const" && index_.node(i).control.empty(); }

  Wiring::Source source(TfOutput o) {
    if (auto it = sources_.find(key(o)); it != sources_.end()) return it->second;
    Wiring::Source s;
    if (literal(o.node)) {
      s = wiring_.literal(name(o.node), constant(o.node), where(o.node));
    } else if (placeholder(o.node)) {
      s = wiring_.feed(name(o.node), Tensor::atom(atom_name(name(o.node))), where(o.node));
      consumed_placeholders_.insert(o.node);
    } else {
      s = wiring_.port(name(o.node), o.port);
    }
    return sources_[key(o)] = s;
  }

  // Input `port` of TF node i, a value, to input `to_port` of tfsem node `to`;
  // a reference or handle is read first, by a Read that joins the entries.
  // Under --tf1-refs, a function `to` dereferences a reference (or its alias
  // `x/read`) itself when it fires (S-DEREF), one input at most; any other
  // consumer reads a snapshot, and the note says so.
  void value_input(std::uint32_t i, std::uint32_t port, const std::string& to, std::uint32_t to_port,
                   std::vector<std::string>& entries, bool function = false) {
    const auto src = index_.node(i).inputs.at(port);
    const auto h = handle(src);
    if (!h) return wiring_.consume(source(src), to, to_port);
    if (options_.tf1_refs && !h->resource) {
      if (function && dereferencing_.insert(to).second) return link(src, to, to_port);
      snapshots_.push_back("'" + name(i) + "' input " + std::to_string(port) +
                           (function ? " (its function dereferences another input)" : " (" + op(i) + " is not a function)"));
    }
    const auto read = to + "@read" + std::to_string(to_port);
    wiring_.node(read, "Read", {}, "t", where(i));
    link(src, read, 0);
    wiring_.consume(wiring_.port(read, 0), to, to_port);
    entries.push_back(read);
  }

  // Input `port` of TF node i, a variable, to input `to_port` of tfsem node `to`.
  void variable_input(std::uint32_t i, std::uint32_t port, const std::string& to, std::uint32_t to_port) {
    var_of(i, port);
    link(index_.node(i).inputs[port], to, to_port);
  }

  // A variable edge from output o (a reference, handle or alias) to input `to_port` of `to`.
  void link(TfOutput o, const std::string& to, std::uint32_t to_port) {
    const auto [from, from_port] = materialize(o);
    wiring_.variable_edge(from, from_port, to, to_port);
  }

  // A fresh variable edge's source for one more consumer of output o.
  std::pair<std::string, std::uint32_t> materialize(TfOutput o) {
    const auto i = o.node;
    if (removed_.count(i)) return materialize(index_.node(i).inputs[0]);  // an initializer: the variable itself
    const auto j = next_consumer_[key(o)]++;
    const auto* r = rule(i);
    if (passer(i) || (r && r->lowering == Lowering::variable)) return {instance(i, j), o.port};
    // An update's output: x once the update is done. A reference that came to
    // the update through a Ref control-flow op is that op's again (a fresh
    // instance), so that it is DEAD, or the error, where the op's output was.
    if (const auto in = index_.node(i).inputs.at(0); passer(in.node)) {
      const auto passed = materialize(in);
      wiring_.control(name(i), passed.first);
      return passed;
    }
    const auto id = name(i) + "@ref" + std::to_string(j + 1);
    wiring_.node(id, "Var", {}, "v", where(i), handle(o)->var);
    wiring_.control(name(i), id);
    return {id, 0};
  }

  // Instance j of a variable node or of a node passing a variable on.
  std::string instance(std::uint32_t i, std::uint32_t j) {
    auto& made = instances_[i];
    while (made.size() <= j) {
      const auto id = made.empty() ? name(i) : name(i) + "@" + std::to_string(made.size() + 1);
      made.push_back(id);
      if (rule(i)->lowering == Lowering::variable) {
        const auto var = handle({i, 0})->var;
        declare_variable(var, i);
        wiring_.node(id, "Var", {}, "v", where(i), var);
        gate(i, {id});
      } else {
        pass_on(i, id, made.size() == 1);
      }
    }
    return made[j];
  }

  // A Ref control-flow op (RefEnter, RefSwitch, ...) on the variable.
  void pass_on(std::uint32_t i, const std::string& id, bool first) {
    if (!instantiating_.insert(i).second)
      fail("I-REF", i, "",
           "a variable carried around a loop (" + op(i) + " on a NextIteration) reaches more than one consumer; tfsem "
           "passes a variable to each consumer on a path of its own, which a loop does not give");
    const auto& in = index_.node(i).inputs;
    const auto form = ref_form(op(i));
    std::string outputs = "v";  // port kinds: a variable, or a tensor (RefMerge's index)
    if (form == "RefSwitch") outputs += 'v';
    if (form == "RefMerge" && first && used({i, 1})) outputs += 't';
    wiring_.node(id, form, loop_attrs(i), outputs, where(i));
    std::vector<std::string> entries = {id};
    for (std::uint32_t k = 0; k < in.size(); ++k) {
      if (form == "RefSwitch" && k == 1) value_input(i, k, id, 1, entries);
      else variable_input(i, k, id, k);
    }
    gate(i, entries);
    instantiating_.erase(i);
  }

  Attrs loop_attrs(std::uint32_t i) {
    if (!op(i).ends_with("Enter")) return {};
    Attrs a{{"frame", attr(i, "frame_name", AttrValue::kS, true)->s()}};
    if (const auto* c = attr(i, "is_constant", AttrValue::kB, false)) a.emplace("is_constant", c->b());
    if (const auto* p = attr(i, "parallel_iterations", AttrValue::kI, false)) a.emplace("parallel_iterations", p->i());
    return a;
  }

  // ---- Control ----

  // Node i's control inputs, on each of the nodes that start its lowering.
  void gate(std::uint32_t i, const std::vector<std::string>& entries) {
    for (auto d : index_.node(i).control) {
      if (removed_.count(d)) {
        dropped_.push_back("^" + name(d) + " of '" + name(i) + "'");
        continue;
      }
      for (const auto& e : entries) {
        if (literal(d) || placeholder(d)) wiring_.control_input(name(d), e);
        else wiring_.control(name(d), e);
      }
    }
  }

  // ---- Lowering, one function per row of op_table.hpp ----

  void lower(std::uint32_t i) {
    const auto* r = rule(i);
    if (fed_.count(i) && r->lowering != Lowering::placeholder) return;  // a fed PlaceholderWithDefault
    if (passer(i)) return void(instance(i, 0));
    if (const auto* f = calls_ ? calls_->library.callee(def(i)) : nullptr; f && calls_->library.interpreted(*f))
      return call(i, *f);
    if (updates(i) && (!r || r->lowering == Lowering::update)) return update(i);
    if (!r || (op(i) == "MatMul" && (flag(i, "transpose_a") || flag(i, "transpose_b")))) return uninterpreted(i);
    switch (r->lowering) {
      case Lowering::variable: return void(instance(i, 0));
      case Lowering::read: return read(i);
      case Lowering::assign: return assign(i, std::string(r->target));
      case Lowering::gradient_step: return gradient_step(i);
      case Lowering::is_initialized: return is_initialized(i);
      case Lowering::destroy: return destroy(i);
      case Lowering::constant:  // a node when it has control inputs, or when nothing reads its value
        if (!literal(i) || !used({i, 0})) single(i, "Const", {{"value", constant(i)}}, 1);
        return;
      case Lowering::placeholder:
        if (!index_.node(i).control.empty()) fail("I-NODE", i, "", "a placeholder takes no control inputs");
        return;
      case Lowering::update: return;
      case Lowering::identity: return handle(index_.node(i).inputs[0]) ? read(i) : single(i, "Identity", {}, 1);
      case Lowering::print: return print(i);
      case Lowering::no_op: return single(i, std::string(r->target), {}, static_cast<std::size_t>(r->outputs));
      case Lowering::function: return single(i, std::string(r->target), {}, static_cast<std::size_t>(r->outputs), true);
      case Lowering::control_flow: {
        const auto outputs = op(i) == "Merge" ? (used({i, 1}) ? 2U : 1U) : static_cast<std::size_t>(r->outputs);
        return single(i, std::string(r->target), loop_attrs(i), outputs);
      }
      case Lowering::rendezvous: return rendezvous(i);
      case Lowering::uninterpreted: return uninterpreted(i);
    }
  }

  // One tfsem node named after node i, taking its inputs as values; a
  // function may dereference one (S-DEREF, --tf1-refs).
  void single(std::uint32_t i, const std::string& tfsem_op, Attrs attrs, std::size_t outputs, bool function = false) {
    wiring_.node(name(i), tfsem_op, std::move(attrs), std::string(outputs, 't'), where(i));
    std::vector<std::string> entries = {name(i)};
    for (std::uint32_t k = 0; k < index_.node(i).inputs.size(); ++k) value_input(i, k, name(i), k, entries, function);
    gate(i, entries);
  }

  // S-SEND, S-RECV: a _Send puts its value on the rendezvous edge to its
  // _Recv. A _Send to the client (a fetch, no _Recv of its key here) is an
  // Identity whose value leaves the graph; a _Recv from the client (a feed)
  // is an uninterpreted input.
  void rendezvous(std::uint32_t i) {
    if (rule(i)->target == "Send") return single(i, paired_sends_.count(i) ? "Send" : "Identity", {}, 1);
    if (!send_of_.count(i)) return uninterpreted(i);
    wiring_.node(name(i), "Recv", {}, "t", where(i));
    wiring_.consume(wiring_.port(name(send_of_.at(i)), 0), name(i), 0);
    gate(i, {name(i)});
  }

  // A Read of a reference or handle, or (StopGradient, Snapshot, ...) of an alias.
  void read(std::uint32_t i) {
    wiring_.node(name(i), "Read", {}, "t", where(i));
    if (!handle(index_.node(i).inputs[0])) var_of(i, 0);  // I-REF
    link(index_.node(i).inputs[0], name(i), 0);
    gate(i, {name(i)});
  }

  void assign(std::uint32_t i, const std::string& tfsem_op) {
    wiring_.node(name(i), tfsem_op, {}, "", where(i));
    std::vector<std::string> entries = {name(i)};
    variable_input(i, 0, name(i), 0);
    value_input(i, 1, name(i), 1, entries);
    gate(i, entries);
  }

  // S-ISINIT: VarIsInitializedOp, a Read of x then IsInitialized of its value
  // (false when x holds the error uninitialized).
  void is_initialized(std::uint32_t i) {
    const auto read = name(i) + "@read";
    wiring_.node(read, "Read", {}, "t", where(i));
    variable_input(i, 0, read, 0);
    wiring_.node(name(i), "IsInitialized", {}, "t", where(i));
    wiring_.consume(wiring_.port(read, 0), name(i), 0);
    gate(i, {read});
  }

  // S-DESTROY: DestroyResourceOp, Assign-Uninitialize of x: x is uninitialized
  // after it (its operand, a constant, is not inspected).
  void destroy(std::uint32_t i) {
    wiring_.node(name(i), "Assign-Uninitialize", {}, "", where(i));
    variable_input(i, 0, name(i), 0);
    wiring_.consume(wiring_.literal(name(i) + "@operand", Tensor::scalar(true), where(i)), name(i), 1);
    gate(i, {name(i)});
  }

  // var -= alpha * delta: atomically with use_locking, else read, compute, write.
  void gradient_step(std::uint32_t i) {
    const auto& n = name(i);
    const auto step = n + "@step";
    wiring_.node(step, "Mul", {}, "t", where(i));
    std::vector<std::string> entries = {step};
    value_input(i, 1, step, 0, entries);
    value_input(i, 2, step, 1, entries);
    if (flag(i, "use_locking")) {
      wiring_.node(n, "Assign-Sub", {}, "", where(i));
      variable_input(i, 0, n, 0);
      wiring_.consume(wiring_.port(step, 0), n, 1);
    } else {
      const auto read = n + "@read", next = n + "@next";
      wiring_.node(read, "Read", {}, "t", where(i));
      variable_input(i, 0, read, 0);
      wiring_.node(next, "Sub", {}, "t", where(i));
      wiring_.consume(wiring_.port(read, 0), next, 0);
      wiring_.consume(wiring_.port(step, 0), next, 1);
      wiring_.node(n, "Write", {}, "", where(i));
      variable_input(i, 0, n, 0);
      wiring_.consume(wiring_.port(next, 0), n, 1);
      entries.push_back(read);
    }
    updates_[op(i) + (flag(i, "use_locking") ? " (use_locking: Assign-Sub)" : " (not atomic: Read, Sub, Write)")]++;
    gate(i, entries);
  }

  // An update of variables by an op tfsem does not model (ApplyAdam, ScatterAdd, ...).
  void update(std::uint32_t i) {
    const auto& n = name(i);
    const auto& in = index_.node(i).inputs;
    if (const auto* r = rule(i))
      for (auto k : r->handles) var_of(i, static_cast<std::uint32_t>(k));
    std::vector<std::uint32_t> vars, values;
    for (std::uint32_t k = 0; k < in.size(); ++k) (reference(in[k]) ? vars : values).push_back(k);
    const auto f = function_name(i);
    const bool locking = flag(i, "use_locking");
    std::vector<std::string> entries, done;
    if (locking) {
      // One atomic Assign-f per variable: f(w, args) with args the other inputs.
      Wiring::Source args;
      if (values.size() == 1) {
        args = source(in[values[0]]);
      } else {
        const auto id = n + "@args";
        declare(f + ".args", false);
        wiring_.node(id, f + ".args", {}, "t", where(i));
        for (std::uint32_t k = 0; k < values.size(); ++k) value_input(i, values[k], id, k, entries);
        entries.push_back(id);
        args = wiring_.port(id, 0);
      }
      for (auto k : vars) {
        const auto fk = vars.size() == 1 ? f : f + ".in" + std::to_string(k);
        const auto id = vars.size() == 1 ? n : n + "@in" + std::to_string(k);
        declare(fk, stateful(op(i)));
        wiring_.node(id, "Assign-" + fk, {}, "", where(i));
        variable_input(i, k, id, 0);
        wiring_.consume(args, id, 1);
        entries.push_back(id);
        done.push_back(id);
      }
    } else {
      // Read each variable, compute every new value at once, write each back: not atomic.
      const auto step = n + "@update";
      declare(f, stateful(op(i)));
      wiring_.node(step, f, {}, std::string(vars.size(), 't'), where(i));
      entries.push_back(step);
      for (std::uint32_t k = 0; k < in.size(); ++k) value_input(i, k, step, k, entries);
      for (std::uint32_t j = 0; j < vars.size(); ++j) {
        const auto id = vars.size() == 1 ? n : n + "@write" + std::to_string(vars[j]);
        wiring_.node(id, "Write", {}, "", where(i));
        variable_input(i, vars[j], id, 0);
        wiring_.consume(wiring_.port(step, j), id, 1);
        done.push_back(id);
      }
    }
    if (done.size() > 1) {  // the op is done when every variable is
      wiring_.node(n, "NoOp", {}, "", where(i));
      for (const auto& d : done) wiring_.control(d, n);
    }
    updates_[op(i) + (locking ? " (use_locking: one Assign-f per variable)" : " (not atomic: Read, f, Write)")]++;
    gate(i, entries);
  }

  // Print(x, data...) = Snd(data_k, ... Snd(data_1, x)): x once the data is there
  // (each Snd a function that may dereference one input, --tf1-refs).
  void print(std::uint32_t i) {
    const auto& n = name(i);
    const auto k = static_cast<std::uint32_t>(index_.node(i).inputs.size());
    if (k == 1) return single(i, "Identity", {}, 1);
    std::vector<std::string> entries;
    std::string previous;
    for (std::uint32_t d = 1; d < k; ++d) {
      const auto id = d + 1 == k ? n : n + "@data" + std::to_string(d);
      wiring_.node(id, "Snd", {}, "t", where(i));
      value_input(i, d, id, 0, entries, true);
      if (d == 1) value_input(i, 0, id, 1, entries, true);
      else wiring_.consume(wiring_.port(previous, 0), id, 1);
      entries.push_back(id);
      previous = id;
    }
    gate(i, entries);
  }

  // The uninterpreted function for node i's op: its name, unless a built-in op
  // has it ("tf.MatMul"), or a library function's name that is not a word.
  std::string function_name(std::uint32_t i) {
    const auto& o = op(i);
    const bool word = std::isalpha(static_cast<unsigned char>(o[0])) &&
                      std::all_of(o.begin(), o.end(), [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; });
    const bool builtin = Registry::builtin().find(o) || find_control_op(o) || o == "Var" || o == "Read" || o == "Write";
    if (word && !builtin) return o;
    std::string out = "tf.";
    for (char c : o) out += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
    return out;
  }

  void declare(const std::string& f, bool is_stateful) { functions_[f] = functions_[f] || is_stateful; }

  // Whether node i calls a function of the library (one tfsem keeps as a call: a
  // recursive one it does not interpret), stateful as its signature or the call says.
  bool library_function(std::uint32_t i, bool* is_stateful) const {
    const auto* f = calls_ ? calls_->library.callee(def(i)) : nullptr;
    if (f == nullptr) return false;
    *is_stateful = f->signature().is_stateful() || op(i) == "StatefulPartitionedCall";
    return true;
  }

  void uninterpreted(std::uint32_t i) {
    bool is_stateful = stateful(op(i));
    const bool call = library_function(i, &is_stateful);
    const auto f = function_name(i);
    declare(f, is_stateful);
    auto& note = uninterpreted_[op(i) + (call ? " (a function of the library)" : "")];
    ++note.first;
    note.second = is_stateful;
    const auto& in = index_.node(i).inputs;
    const auto takes = std::find_if(in.begin(), in.end(), [&](TfOutput src) {
      const auto h = reference(src);
      return h && h->resource;
    });
    if (!is_stateful || takes == in.end()) return single(i, f, {}, outputs_used(i), true);
    // I-STATEFUL-VAR: a stateful op taking a resource variable's handle may
    // change the variable; it takes the variable itself (S-DEREF), a reader of
    // it, and the report cannot assume it does not interact.
    wiring_.node(name(i), f, {}, std::string(outputs_used(i), 't'), where(i));
    std::vector<std::string> entries = {name(i)};
    for (std::uint32_t k = 0; k < in.size(); ++k) {
      if (k == static_cast<std::uint32_t>(takes - in.begin())) link(in[k], name(i), k);
      else value_input(i, k, name(i), k, entries);
    }
    gate(i, entries);
  }

  // ---- Functions of the library (library.hpp) ----

  // A call of a function tfsem interprets: a call site, its inputs the
  // arguments and its outputs the results (thesis section 5).
  void call(std::uint32_t i, const FunctionDef& f) {
    calls_->called.insert(f.signature().name());
    single(i, f.signature().name(), {}, static_cast<std::size_t>(f.signature().output_arg_size()));
  }

  // The bodies of the functions called, and of those they call, as tfsem's library.
  void import_library() {
    std::set<std::string> done;
    for (bool more = true; more;) {
      more = false;
      for (const auto& fname : std::set<std::string>(calls_->called))  // a copy: bodies call more
        if (done.insert(fname).second) {
          more = true;
          out_.spec.library.push_back(library_function(*calls_->library.find(fname)));
        }
    }
  }

  LibraryFunction library_function(const FunctionDef& f) {
    const auto& fname = f.signature().name();
    const auto where = "function '" + fname + "'";
    const auto body = calls_->library.body(f);
    const ImportOptions options{.fetches = body.results, .tf1_refs = options_.tf1_refs, .stop = options_.stop};
    Imported imported;
    try {
      // Its functional ops lowered and its calls inlined but the recursive ones (I-CALL).
      const auto flat = flatten_functions(body.graph, calls_->library, body.results);
      imported = Importer(flat.graph, options, calls_, true, &flat).run(fname);
    } catch (const InputError& e) {
      auto diags = e.diagnostics();
      for (auto& d : diags) d.where = where + ": " + d.where;
      throw InputError(std::move(diags));
    }
    LibraryFunction out{fname, {}, {}, std::move(imported.spec.nodes), body_edges(std::move(imported.spec.edges)), where};
    for (const auto& a : f.signature().input_arg()) out.args.push_back(a.name());
    for (const auto& r : f.signature().output_arg()) out.results.push_back(r.name());
    for (auto& n : out.nodes) n.where = where + ": " + n.where;
    for (auto& e : out.edges) {
      e.where = where + ": " + e.where;
      // The static transformation names nodes after a body's input edges, and a node's name has no ':'.
      auto id = e.id.str();
      std::replace(id.begin(), id.end(), ':', '.');
      e.id = id;
      if (!e.from && std::find(out.args.begin(), out.args.end(), e.id) != out.args.end()) {
        e.arg = e.id;  // a Placeholder standing for an argument
        e.value.reset();
      }
      if (!e.to && e.fetch && !e.fetch->empty()) {  // a ret; two naming one output give one result (G-FN)
        const auto j = std::find(body.results.begin(), body.results.end(), *e.fetch);
        if (j != body.results.end()) e.result = out.results[static_cast<std::size_t>(j - body.results.begin())];
        e.fetch.reset();
      }
    }
    for (const auto& fn : imported.spec.functions) declare(fn.name, fn.stateful);
    for (const auto& note : imported.notes) out_.notes.push_back(where + ": " + note);
    return out;
  }

  // ---- Fetches ----

  void fetch(const std::string& text) {
    const auto parsed = GraphIndex::split_output(fetched(text));
    const auto i = parsed ? index_.find(parsed->first) : std::nullopt;
    auto refuse = [&](const std::string& message) { diags_.push_back({"I-FETCH", "--fetch", "'" + text + "'", message}); };
    if (!i) return refuse("no node '" + std::string(parsed ? parsed->first : text) + "' in the graph");
    if (removed_.count(*i)) return refuse("an initializer, left out by --initialized");
    if (text.find(':') == std::string::npos) {  // an op to run
      if (literal(*i) || placeholder(*i)) return refuse("a constant or placeholder is not run; fetch its value, " + text + ":0");
      return wiring_.target(name(*i), text);
    }
    const TfOutput o{*i, parsed->second};
    if (const auto outputs = outputs_of(*i); outputs && o.port >= *outputs) return refuse(outputs_text(*i));
    if (!handle(o)) return wiring_.fetch(source(o), text);
    // A reference or handle is fetched as a value: read when the run gets to it.
    const auto read = name(*i) + "@fetch" + std::to_string(o.port);
    wiring_.node(read, "Read", {}, "t", where(*i));
    link(o, read, 0);
    wiring_.fetch(wiring_.port(read, 0), text);
  }

  // ---- Notes ----

  void write_notes() {
    auto list = [](const std::vector<std::string>& items) {
      std::string s;
      for (const auto& x : items) s += (s.empty() ? "" : ", ") + x;
      return s;
    };
    std::vector<std::string> ops;
    for (const auto& [o, n] : uninterpreted_)
      ops.push_back(o + " (" + std::to_string(n.first) + " node" + (n.first == 1 ? "" : "s") + (n.second ? ", stateful" : "") + ")");
    if (!ops.empty())
      out_.notes.push_back("uninterpreted ops, deterministic functions whose results are terms; a stateful op's state is "
                           "not modelled: " + list(ops));
    std::vector<std::string> ups;
    for (const auto& [o, n] : updates_) ups.push_back(o + " x" + std::to_string(n));
    if (!ups.empty()) out_.notes.push_back("variable updates: " + list(ups));
    if (!symbols_.empty()) out_.notes.push_back("constants tfsem holds as symbols: " + list(symbols_));
    // I-FEED: an unfed placeholder is the symbolic value named after it.
    std::vector<std::string> unfed, unused;
    for (const auto i : consumed_placeholders_)
      if (!fed_.count(i)) unfed.push_back(name(i) + (atom_name(name(i)) == name(i) ? "" : " as " + atom_name(name(i))));
    for (const auto i : fed_)
      if (!consumed_placeholders_.count(i)) unused.push_back(name(i));
    if (!unfed.empty() && !body_)  // a body's placeholders are its arguments
      out_.notes.push_back("unfed placeholders taken as symbols: " + list(unfed) + "; --feed NAME=VALUE makes one concrete");
    if (!unused.empty())
      out_.notes.push_back("fed placeholders the run does not consume, their values unused (as TensorFlow accepts them): " +
                           list(unused));
    if (restored_ > 0)
      out_.notes.push_back(std::to_string(restored_) + (restored_ == 1 ? " variable starts" : " variables start") +
                           " as restored from the SavedModel's checkpoint: each variable v holds the symbolic value "
                           "restored(v)");
    if (!initializers_.empty()) out_.notes.push_back("initialized before the run (--initialized): " + list(initializers_));
    if (!dropped_.empty()) out_.notes.push_back("control inputs on initializers left out (--initialized): " + list(dropped_));
    if (options_.tf1_refs)
      out_.notes.push_back("--tf1-refs: " + std::to_string(dereferencing_.size()) +
                           (dereferencing_.size() == 1 ? " function dereferences" : " functions dereference") +
                           " a variable when it runs (S-DEREF)" +
                           (snapshots_.empty() ? std::string()
                                               : "; reads of a reference kept as snapshots (a Read before the consumer "
                                                 "runs: among its values are those the alias gives): " + list(snapshots_)) +
                           (replaced_.empty() ? std::string()
                                              : "; `x/read` stays a snapshot (a Read) of the variables an Assign with "
                                                "validate_shape false may give a new buffer: " +
                                                    list({replaced_.begin(), replaced_.end()})));
  }
};

}  // namespace

Imported import_graph(const GraphDef& graph, const std::string& name, const ImportOptions& options) {
  if (graph.library().function_size() == 0) return Importer(graph, options, nullptr, false).run(name);
  Calls calls{Library(graph.library()), {}};
  const auto flat = flatten_functions(graph, calls.library, options.fetches, options.stop);
  return Importer(flat.graph, options, &calls, false, &flat).run(name);
}

}  // namespace tfsem::graphdef
