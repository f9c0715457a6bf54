#include "semantics/functions.hpp"

#include "semantics/diagnostic.hpp"
#include "semantics/ops.hpp"

#include <map>
#include <set>

namespace tfsem {

namespace {

std::string fn_subject(const LibraryFunction& f) { return "function '" + f.name + "'"; }

// G-FN: the library and its call sites are well formed; every problem at once.
class LibraryCheck {
 public:
  explicit LibraryCheck(const ProgramSpec& spec) : spec_(spec) {}

  void run() {
    std::set<std::string> names;
    for (const auto& f : spec_.library) {
      if (f.name.empty()) error(f.where, "function", "a function needs a non-empty \"name\"");
      else if (!names.insert(f.name).second) error(f.where, fn_subject(f), "declared twice");
      else if (attr_specs(f.name) != nullptr || f.name.starts_with("Assign-"))
        error(f.where, fn_subject(f), "'" + f.name + "' is an operation's name; a function needs a name of its own");
      check_names(f, f.args, "args", "argument");
      check_names(f, f.results, "results", "result");
      check_body(f);
    }
    check_calls(spec_.nodes, spec_.edges);
    for (const auto& f : spec_.library) check_calls(f.nodes, f.edges);
    if (!diags_.empty()) throw InputError(std::move(diags_));
  }

 private:
  const ProgramSpec& spec_;
  std::vector<Diagnostic> diags_;

  void error(std::string_view where, const std::string& subject, std::string message) {
    diags_.push_back({"G-FN", std::string(where), subject, std::move(message)});
  }
  [[nodiscard]] const LibraryFunction* find(std::string_view name) const {
    for (const auto& f : spec_.library)
      if (f.name == name) return &f;
    return nullptr;
  }

  void check_names(const LibraryFunction& f, const std::vector<std::string>& list, const char* key, const char* what) {
    if (list.empty()) error(f.where + "/" + key, fn_subject(f), std::string("a function takes at least one ") + what);
    std::set<std::string> seen;
    for (std::size_t i = 0; i < list.size(); ++i)
      if (list[i].empty() || !seen.insert(list[i]).second)
        error(f.where + "/" + key + "/" + std::to_string(i), fn_subject(f),
              std::string(what) + " names are non-empty and unique, not '" + list[i] + "'");
  }

  // Input edges carry an argument or a value; output edges give a result, each exactly once.
  void check_body(const LibraryFunction& f) {
    std::map<std::string, int> given;
    for (const auto& e : f.edges) {
      const auto subject = "edge '" + e.id + "' of " + fn_subject(f);
      const bool has_value = e.value.has_value();
      if (!e.arg.empty()) {
        if (e.from) error(e.where + "/arg", subject, "only an input edge (no \"from\") carries an argument");
        else if (std::find(f.args.begin(), f.args.end(), e.arg) == f.args.end())
          error(e.where + "/arg", subject, "'" + e.arg + "' is not an argument of " + fn_subject(f));
        else if (e.kind != "tensor") error(e.where + "/arg", subject, "an argument is a tensor, carried by a tensor edge");
        else if (has_value) error(e.where + "/value", subject, "an edge carries an argument or a value, not both");
      } else if (!e.from && !has_value) {
        error(e.where, subject, "an input edge of a function's body carries an argument (\"arg\") or a value");
      }
      if (!e.result.empty()) {
        if (e.to) error(e.where + "/result", subject, "only an output edge (no \"to\") gives a result");
        else if (std::find(f.results.begin(), f.results.end(), e.result) == f.results.end())
          error(e.where + "/result", subject, "'" + e.result + "' is not a result of " + fn_subject(f));
        else if (e.kind != "tensor") error(e.where + "/result", subject, "a result is a tensor, given by a tensor edge");
        else ++given[e.result];
      }
      if (!e.to && e.fetch && !e.fetch->empty())
        error(e.where + "/fetch", subject, "a function's body fetches nothing: its outputs are its results");
    }
    for (const auto& r : f.results)
      if (given[r] != 1)
        error(f.where, fn_subject(f),
              "result '" + r + (given[r] == 0 ? "' is not produced: no output edge of the body gives it"
                                              : "' is given by " + std::to_string(given[r]) + " output edges; one gives it"));
  }

  // A call site has one tensor edge per argument and at most one per result.
  template <class E>
  void check_calls(const std::vector<NodeSpec>& nodes, const std::vector<E>& edges) {
    for (const auto& n : nodes) {
      const auto* f = find(n.op);
      if (f == nullptr) continue;
      const auto subject = "node '" + n.id + "'";
      if (!n.attrs->empty() || !n.var.empty())
        error(n.where, subject, "a call of '" + f->name + "' takes no attributes and no variable");
      std::vector<int> in(f->args.size(), 0), out(f->results.size(), 0);
      for (const auto& e : edges) {
        if (e.kind == "control") continue;
        for (const auto& [end, ports, names, what] :
             {std::tuple{&e.to, &in, &f->args, "argument"}, std::tuple{&e.from, &out, &f->results, "result"}}) {
          if (!*end || (*end)->node != n.id) continue;
          const auto port = (*end)->port.value_or(0);
          if (e.kind != "tensor")
            error(e.where, "edge '" + e.id + "'", "a call's " + std::string(what) + "s are tensors, on tensor edges");
          else if (port < 0 || static_cast<std::size_t>(port) >= ports->size())
            error(e.where, "edge '" + e.id + "'",
                  "port " + std::to_string(port) + " of call '" + n.id + "': '" + f->name + "' has " +
                      std::to_string(names->size()) + " " + what + (names->size() == 1 ? "" : "s"));
          else ++(*ports)[static_cast<std::size_t>(port)];
        }
      }
      for (std::size_t i = 0; i < in.size(); ++i)
        if (in[i] != 1)
          error(n.where, subject,
                "calls '" + f->name + "' with " + std::to_string(in[i]) + " edges for argument '" + f->args[i] + "' (port " +
                    std::to_string(i) + "); a call gives each argument one edge");
      for (std::size_t j = 0; j < out.size(); ++j)
        if (out[j] > 1)
          error(n.where, subject,
                "result '" + f->results[j] + "' (port " + std::to_string(j) +
                    ") has several edges; one result feeds one edge, so add a Copy node to share it");
    }
  }
};

PortRef port(std::string node, std::int64_t p = 0) { return {std::move(node), static_cast<std::uint32_t>(p)}; }

// The function transformation (G-FN): writes the main graph and the instantiated bodies.
class FunctionTransform {
 public:
  enum class Mode : std::uint8_t { make_static, make_inline };
  FunctionTransform(const ProgramSpec& in, Mode mode, int depth) : in_(in), mode_(mode), depth_(depth) {
    out_.name = in.name;
    out_.description = in.description;
    out_.where = in.where;
    out_.variables = in.variables;
    out_.functions = in.functions;  // the uninterpreted ones the graph declares
  }

  ProgramSpec run() {
    instantiate(in_.nodes, in_.edges, "", nullptr, depth_);
    if (mode_ == Mode::make_static) finish_static();
    give_outputs();
    return std::move(out_);
  }

 private:
  // How a body is reached: where each argument comes from, the node that
  // triggers nodes with no input, and (filled in) the port giving each result.
  struct Body {
    const LibraryFunction* fn;
    std::vector<PortRef> args;
    std::string trigger;
    std::vector<PortRef> results{};
  };
  // A destination for a value some node gives to several consumers.
  struct Use {
    std::string id;
    CompactString kind;
    OptionalPortRef to;
    CompactString where;
  };
  struct Site {
    std::string name;  // the call site's node, scoped
    std::uint32_t number;
  };

  const ProgramSpec& in_;
  Mode mode_;
  int depth_;
  ProgramSpec out_;
  std::map<std::string, std::vector<Site>> sites_;  // static: by function, its call sites
  std::map<std::string, Body> bodies_;               // static: by function, its one instance
  std::vector<std::string> pending_;                 // static: functions called, body not yet made
  std::vector<std::pair<std::string, std::string>> result_nodes_;  // every call's per-result node, and its place

  [[nodiscard]] const LibraryFunction* find(std::string_view name) const {
    for (const auto& f : in_.library)
      if (f.name == name) return &f;
    return nullptr;
  }

  void node(std::string_view id, std::string_view op, CopyOnWrite<Attrs> attrs, std::string_view where,
            std::string_view device = "") {
    out_.nodes.push_back({id, op, "", std::move(attrs), where, device});
  }
  void edge(std::string_view id, std::string_view kind, OptionalPortRef from, OptionalPortRef to, std::string_view where,
            Boxed<CompactString> fetch = std::nullopt) {
    EdgeSpec e;
    e.id = id;
    e.kind = kind;
    e.from = std::move(from);
    e.to = std::move(to);
    e.fetch = std::move(fetch);
    e.where = where;
    out_.edges.push_back(std::move(e));
  }

  // One value to every use: directly, or through a chain of Copy nodes (G-FANOUT).
  void fan_out(const PortRef& from, const std::vector<Use>& uses, const std::string& base, const std::string& where) {
    if (uses.empty()) return edge(base + ".unused", "tensor", from, std::nullopt, where, "");
    PortRef src = from;
    for (std::size_t i = 0; i < uses.size(); ++i) {
      if (i + 1 < uses.size()) {
        const auto copy = base + ".copy" + std::to_string(i + 1);
        node(copy, "Copy", {}, where);
        edge(copy + ".in", "tensor", src, port(copy), where);
        edge(uses[i].id, uses[i].kind, port(copy, 0), uses[i].to, uses[i].where, uses[i].to ? std::nullopt : std::optional(""));
        src = port(copy, 1);
      } else {
        edge(uses[i].id, uses[i].kind, src, uses[i].to, uses[i].where, uses[i].to ? std::nullopt : std::optional(""));
      }
    }
  }

  // The argument an edge of a scope carries, and the result it gives: the
  // body's own, none in the main graph.
  static const std::string& arg_of(const EdgeSpec&) { return kNoName; }
  static const std::string& arg_of(const BodyEdgeSpec& e) { return e.arg; }
  static const std::string& result_of(const EdgeSpec&) { return kNoName; }
  static const std::string& result_of(const BodyEdgeSpec& e) { return e.result; }
  static inline const std::string kNoName;

  // The nodes and edges of one scope (the main graph, or a body under
  // prefix), with its call sites replaced; depth: how deep calls may still go
  // when inlining.
  template <class E>
  void instantiate(const std::vector<NodeSpec>& nodes, const std::vector<E>& edges, const std::string& prefix, Body* body,
                   int depth) {
    std::map<std::string, const LibraryFunction*, std::less<>> calls;  // call-site node ids of this scope
    std::set<std::string> triggered;                                // scoped nodes with an incoming edge
    std::vector<std::string> plain;                                 // scoped nodes that are not call sites
    for (const auto& n : nodes) {
      if (const auto* f = find(n.op)) {
        calls.emplace(n.id, f);
        call_site(n, prefix + n.id, *f, depth);
        continue;
      }
      node(prefix + n.id, n.op, n.attrs, n.where, n.device);
      out_.nodes.back().var = n.var;
      plain.push_back(prefix + n.id);
    }
    // Where an edge ends: a node of this scope, or a call's per-argument or per-result node.
    auto scoped = [&](const PortRef& r, bool in) -> PortRef {
      const auto it = calls.find(r.node);
      if (it == calls.end()) return {prefix + r.node, r.port};
      const auto& names = in ? it->second->args : it->second->results;
      return port(prefix + r.node + (in ? arg_node() : result_node()) + names[static_cast<std::size_t>(r.port.value_or(0))]);
    };
    // A control edge's ends: to or from a call, each of its nodes; absent, none.
    auto ends = [&](const OptionalPortRef& r, bool in) {
      std::vector<OptionalPortRef> out;
      if (!r) return std::vector<OptionalPortRef>{std::nullopt};
      const auto it = calls.find(r->node);
      if (it == calls.end()) return std::vector<OptionalPortRef>{PortRef{prefix + r->node, std::nullopt}};
      for (const auto& name : in ? it->second->args : it->second->results)
        out.emplace_back(PortRef{prefix + r->node + (in ? arg_node() : result_node()) + name, std::nullopt});
      return out;
    };
    std::vector<std::vector<Use>> arg_uses(body ? body->fn->args.size() : 0);
    for (const auto& e : edges) {
      const auto id = prefix + e.id;
      if (e.kind == "control" && (e.from || body == nullptr)) {
        const auto froms = ends(e.from, false), tos = ends(e.to, true);
        for (const auto& f : froms)
          for (const auto& t : tos) {
            edge(id + (froms.size() > 1 ? "/" + f->node : "") + (tos.size() > 1 ? "/" + t->node : ""), e.kind, f, t, e.where, e.fetch);
            if (!e.from) out_.edges.back().value = e.value;
            if (t) triggered.insert(t->node.str());
          }
        continue;
      }
      OptionalPortRef to;
      if (e.to) triggered.insert((to = scoped(*e.to, true))->node.str());
      OptionalPortRef from;
      if (e.from) from = scoped(*e.from, false);
      if (body != nullptr && !e.to && !result_of(e).empty()) {  // a result: its port, connected by the caller
        auto& result = body->results[index_of(body->fn->results, result_of(e))];
        if (from) {
          result = *from;
          continue;
        }
        node(id + ".result", "Identity", {}, e.where);  // an argument given back as a result
        result = port(id + ".result");
        to = result;
      }
      if (body != nullptr && !e.from) {
        if (!arg_of(e).empty()) {  // the argument, from the body's source of it
          arg_uses[index_of(body->fn->args, arg_of(e))].push_back({id, e.kind, to, e.where});
          continue;
        }
        from = value_node(e, id, body->trigger);  // a value: a node the call triggers gives it
        if (!from) {  // GO: the call itself
          edge(id, e.kind, PortRef{body->trigger, std::nullopt}, to, e.where);
          continue;
        }
      }
      // A body's output edge that gives no result drops its values (a function fetches nothing).
      edge(id, e.kind, from, to, e.where, body != nullptr && !to ? Boxed<CompactString>("") : e.fetch);
      if (!from) out_.edges.back().value = e.value;
    }
    if (body == nullptr) return;
    for (std::size_t a = 0; a < arg_uses.size(); ++a)
      fan_out(body->args[a], arg_uses[a], prefix + "arg." + body->fn->args[a], body->fn->where);
    // A node with no incoming edge (a Const, a Var) is triggered by the call.
    for (const auto& n : plain)
      if (!triggered.count(n)) edge(n + ".trigger", "control", PortRef{body->trigger, std::nullopt}, PortRef{n, std::nullopt}, body->fn->where);
  }

  static std::size_t index_of(const std::vector<std::string>& names, const std::string& name) {
    return static_cast<std::size_t>(std::find(names.begin(), names.end(), name) - names.begin());
  }
  // The names of a call site's node per argument and per result: SITE/call.ARG and SITE/return.RESULT
  // (static: Call and Return), or SITE/arg.ARG and SITE/result.RESULT (inline).
  [[nodiscard]] std::string arg_node() const { return mode_ == Mode::make_static ? "/call." : "/arg."; }
  [[nodiscard]] std::string result_node() const { return mode_ == Mode::make_static ? "/return." : "/result."; }

  // An input edge's value inside a body: a Const (or a Var, for a variable
  // edge) that the call triggers; none for GO (or no value).
  OptionalPortRef value_node(const EdgeSpec& e, const std::string& id, const std::string& trigger) {
    const auto name = id + ".value";
    if (const auto* t = e.value_as<Tensor>()) node(name, "Const", Attrs{{"value", *t}}, e.where);
    else if (const auto* x = e.value_as<CompactString>()) {
      node(name, "Var", {}, e.where);
      out_.nodes.back().var = *x;
    } else return std::nullopt;
    edge(name + ".trigger", "control", PortRef{trigger, std::nullopt}, PortRef{name, std::nullopt}, e.where);
    return port(name);
  }

  // A call site: a node per argument and per result, on the call's device,
  // and what joins them to the body.
  void call_site(const NodeSpec& n, const std::string& name, const LibraryFunction& f, int depth) {
    if (mode_ == Mode::make_static) {
      auto& sites = sites_[f.name];
      if (sites.empty()) pending_.push_back(f.name);
      const auto number = static_cast<std::uint32_t>(sites.size() + 1);
      sites.push_back({name, number});
      const CopyOnWrite<Attrs> attrs(Attrs{{std::string(kFunctionAttr), f.name}, {std::string(kSiteAttr), std::int64_t{number}}});
      for (const auto& a : f.args) node(name + "/call." + a, "Call", attrs, n.where, n.device);
      for (const auto& r : f.results) {
        node(name + "/return." + r, "Return", attrs, n.where, n.device);
        result_nodes_.emplace_back(name + "/return." + r, n.where);
      }
      // "every Call has a control edge to its Return" (thesis section 5.4.6)
      for (const auto& a : f.args)
        for (const auto& r : f.results)
          edge(name + "/call." + a + "/return." + r, "control", PortRef{name + "/call." + a, std::nullopt},
               PortRef{name + "/return." + r, std::nullopt}, n.where);
      return;
    }
    for (const auto& a : f.args) node(name + "/arg." + a, "Identity", {}, n.where, n.device);
    if (depth <= 0) {  // refused at run time, unless the call is not made (a DEAD argument)
      const auto refused = Tensor::error(ErrorKind::domain, "the call of '" + f.name + "' at '" + name + "' is deeper than --inline " +
                                                                std::to_string(depth_) + ": refused");
      for (const auto& r : f.results) {
        node(name + "/result." + r, "Const", Attrs{{"value", refused}}, n.where, n.device);
        result_nodes_.emplace_back(name + "/result." + r, n.where);
      }
      for (const auto& a : f.args) {
        edge(name + "/arg." + a + ".out", "tensor", port(name + "/arg." + a), std::nullopt, n.where, "");
        for (const auto& r : f.results)
          edge(name + "/arg." + a + "/result." + r, "control", PortRef{name + "/arg." + a, std::nullopt},
               PortRef{name + "/result." + r, std::nullopt}, n.where);
      }
      return;
    }
    Body body{&f, {}, name + "/arg." + f.args[0], std::vector<PortRef>(f.results.size())};
    for (const auto& a : f.args) body.args.push_back(port(name + "/arg." + a));
    instantiate(f.nodes, f.edges, name + "/", &body, depth - 1);
    for (std::size_t r = 0; r < f.results.size(); ++r) {
      node(name + "/result." + f.results[r], "Identity", {}, n.where, n.device);
      result_nodes_.emplace_back(name + "/result." + f.results[r], n.where);
      edge(name + "/result." + f.results[r] + ".in", "tensor", body.results[r], port(name + "/result." + f.results[r]), f.where);
    }
  }

  // Each call site's per-result nodes put their value somewhere (an unfetched output, if nothing reads it).
  void give_outputs() {
    std::set<std::string> given;
    for (const auto& e : out_.edges)
      if (e.from && e.kind != "control") given.insert(e.from->node.str());
    for (const auto& [name, where] : result_nodes_)
      if (!given.count(name)) edge(name + ".out", "tensor", port(name), std::nullopt, where, "");
  }

  // Static: each called function's body once, its argument Merges, and its results to every site's Returns.
  void finish_static() {
    for (std::size_t i = 0; i < pending_.size(); ++i) {  // bodies may call further functions
      const auto& f = *find(pending_[i]);
      auto& body = bodies_[f.name];
      body = {&f, {}, f.name + "/arg." + f.args[0], std::vector<PortRef>(f.results.size())};
      for (const auto& a : f.args) body.args.push_back(port(f.name + "/arg." + a));
      instantiate(f.nodes, f.edges, f.name + "/", &body, 0);
    }
    for (const auto& name : pending_) {
      const auto& f = *find(name);
      const auto& sites = sites_[name];
      for (const auto& a : f.args) {
        const auto merge = name + "/arg." + a;
        node(merge, "Merge", {}, f.where);
        for (std::size_t k = 0; k < sites.size(); ++k)
          edge(sites[k].name + "/call." + a + ".arg", "tensor", port(sites[k].name + "/call." + a), port(merge, static_cast<std::int64_t>(k)), f.where);
      }
      for (std::size_t r = 0; r < f.results.size(); ++r) {
        std::vector<Use> uses;
        for (const auto& site : sites)
          uses.push_back({site.name + "/return." + f.results[r] + ".result", "tensor", port(site.name + "/return." + f.results[r]), f.where});
        fan_out(bodies_[name].results[r], uses, name + "/result." + f.results[r], f.where);
      }
    }
  }
};

}  // namespace

ProgramSpec make_static(ProgramSpec spec) {
  if (spec.library.empty()) return spec;
  LibraryCheck(spec).run();
  return FunctionTransform(spec, FunctionTransform::Mode::make_static, 0).run();
}

ProgramSpec inline_calls(ProgramSpec spec, int depth) {
  if (spec.library.empty()) return spec;
  LibraryCheck(spec).run();
  return FunctionTransform(spec, FunctionTransform::Mode::make_inline, depth).run();
}

}  // namespace tfsem
