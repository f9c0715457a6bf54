#include "semantics/concurrent.hpp"

#include "semantics/diagnostic.hpp"
#include "semantics/ops.hpp"

#include <algorithm>
#include <set>

namespace tfsem {

namespace {

CompactString named(const std::string& label, std::string_view name) { return label + "/" + std::string(name); }

OptionalPortRef renamed(const std::string& label, const OptionalPortRef& end) {
  if (!end) return std::nullopt;
  return PortRef{named(label, end->node), end->port};
}

// Adds `item` to `into` unless one of its name is there; one that differs is an error.
template <class T, class Same>
void add_shared(std::vector<T>& into, const T& item, const std::string& label, const char* what, Same same) {
  const auto it = std::find_if(into.begin(), into.end(), [&](const T& x) { return x.name == item.name; });
  if (it == into.end()) return into.push_back(item);
  if (!same(*it, item))
    throw InputError("", "--concurrent", "'" + label + "'",
                     std::string(what) + " '" + item.name + "' differs from an earlier run's: concurrent runs share it");
}

}  // namespace

bool one_run(const Program& p, NodeId a, NodeId b) {
  const auto run = [&](NodeId n) {
    const auto name = p.node(n).name().view();
    return name.substr(0, name.find('/'));
  };
  return run(a) == run(b);
}

ProgramSpec concurrent_runs(const std::vector<ConcurrentRun>& runs) {
  ProgramSpec out;
  std::set<std::string> labels;
  for (const auto& [label, program] : runs) {
    if (label.empty() || label.find('/') != std::string::npos || !labels.insert(label).second)
      throw InputError("", "--concurrent", "'" + label + "'", "each concurrent run needs a label of its own, without '/'");
    const auto& spec = program->spec();
    out.name += (out.name.empty() ? "" : "+") + label;
    if (out.description.empty()) out.description = "concurrent runs of " + spec.name + " (S-CONCURRENT)";
    for (const auto& v : spec.variables)
      add_shared(out.variables, v, label, "variable", [](const VariableSpec& a, const VariableSpec& b) {
        return a.init.has_value() == b.init.has_value() && (!a.init || *a.init == *b.init);
      });
    for (const auto& f : spec.functions)
      add_shared(out.functions, f, label, "function", [](const FunctionSpec& a, const FunctionSpec& b) { return a.stateful == b.stateful; });
    for (const auto& f : spec.library)
      add_shared(out.library, f, label, "library function", [](const LibraryFunction& a, const LibraryFunction& b) {
        const auto same_node = [](const NodeSpec& x, const NodeSpec& y) { return x.id == y.id && x.op == y.op && x.var == y.var; };
        return a.args == b.args && a.results == b.results && a.edges.size() == b.edges.size() &&
               std::equal(a.nodes.begin(), a.nodes.end(), b.nodes.begin(), b.nodes.end(), same_node);
      });
    for (auto n : spec.nodes) {
      n.id = named(label, n.id);
      if (const auto it = n.attrs->find(kFrameAttr); it != n.attrs->end() && std::holds_alternative<std::string>(it->second)) {
        auto& frame = std::get<std::string>(n.attrs.edit().find(kFrameAttr)->second);  // the node's own copy
        frame = label + "/" + frame;  // a loop's frame is the run's own
      }
      out.nodes.push_back(std::move(n));
    }
    for (auto e : spec.edges) {
      if (!e.to && e.fetch && !e.fetch->empty()) e.fetch = named(label, *e.fetch);  // an output's (by default: its id, renamed below)
      e.id = named(label, e.id);
      e.from = renamed(label, e.from);
      e.to = renamed(label, e.to);
      out.edges.push_back(std::move(e));
    }
  }
  return out;
}

}  // namespace tfsem
