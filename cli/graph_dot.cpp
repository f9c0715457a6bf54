#include "cli/graph_dot.hpp"

#include "cli/dot.hpp"
#include "explorer/explore.hpp"
#include "semantics/diagnostic.hpp"
#include "semantics/session.hpp"

#include <functional>
#include <map>
#include <set>
#include <sstream>
#include <tuple>

namespace tfsem::cli {

namespace {

const char* edge_style(EdgeKind k) {
  switch (k) {
    case EdgeKind::tensor: return "solid";
    case EdgeKind::variable: return "dashed";
    case EdgeKind::control: return "dotted";
  }
  return "solid";
}

// The state after firing `schedule` from the initial state; a step that is not
// enabled is refused with the reason.
State state_after(const Semantics& sem, const std::string& schedule) {
  State s = sem.initial();
  if (schedule == "initial") return s;
  if (auto why = replay(sem, s, parse_schedule(sem, schedule))) throw InputError("T-SCHEDULE", "--state", "", *why);
  return s;
}

// Nodes grouped by name scope, as TensorFlow names them ("layer1/dense/MatMul"
// is in layer1/dense): each scope with two nodes or more is a cluster. The
// names tfsem adds ("x/read@copy1") are in the scope of the node they serve,
// and a node named as a scope is in it.
struct Scope {
  std::map<std::string, Scope, std::less<>> children;
  std::vector<NodeId> nodes;
  [[nodiscard]] std::size_t size() const {
    std::size_t n = nodes.size();
    for (const auto& [name, c] : children) n += c.size();
    return n;
  }
};

// A node named as a scope ("x", beside "x/Assign" and "x/read") joins it.
void adopt(const Program& p, Scope& s) {
  std::vector<NodeId> stay;
  for (auto n : s.nodes) {
    const std::string_view name = p.node(n).name();
    const auto base = name.substr(0, name.find('@'));
    const auto it = s.children.find(base.substr(base.rfind('/') + 1));
    (it == s.children.end() ? stay : it->second.nodes).push_back(n);
  }
  s.nodes = std::move(stay);
  for (auto& [name, child] : s.children) adopt(p, child);
}

Scope scopes(const Program& p, const std::vector<NodeId>& nodes) {
  Scope root;
  for (auto n : nodes) {
    const std::string_view name = p.node(n).name();
    const auto base = name.substr(0, name.find('@'));
    Scope* s = &root;
    for (std::size_t begin = 0, slash; (slash = base.find('/', begin)) != std::string_view::npos; begin = slash + 1)
      s = &s->children.try_emplace(std::string(base.substr(begin, slash - begin))).first->second;
    s->nodes.push_back(n);
  }
  adopt(p, root);
  return root;
}

}  // namespace

std::string graph_dot(const Semantics& sem, bool with_races, const std::string& state_schedule) {
  const auto& p = sem.program();
  std::optional<State> state;
  if (!state_schedule.empty()) state = state_after(sem, state_schedule);
  std::vector<bool> racing(p.nodes().size(), false);
  std::ostringstream races;
  if (with_races) {
    // One line per racing pair of nodes, whatever the contexts they raced in.
    std::set<std::tuple<NodeId, NodeId, VarId, bool>> pairs;
    for (const auto& r : explorer::explore(sem).races) pairs.emplace(r.first.node, r.second.node, r.var, r.harmful);
    for (const auto& [a, b, x, harmful] : pairs) {
      if (!harmful && pairs.count({a, b, x, true})) continue;
      racing[a.index()] = racing[b.index()] = true;
      races << "  n" << a.value << " -> n" << b.value << " [dir=none, color=red, style=bold, constraint=false, label=\"race on "
            << dot_escape(p.variable(x).name) << (harmful ? "" : " (benign)") << "\", fontcolor=red];\n";
    }
  }
  std::ostringstream out;
  out << "digraph \"" << dot_escape(p.name()) << "\" {\n  node [shape=box, style=rounded, fontname=\"Helvetica\"];\n"
      << "  edge [fontname=\"Helvetica\", fontsize=10];\n";
  // Each loop frame is a cluster, nested as the frames are (each function's
  // frame one beside the root), and in each, each name scope with two nodes or more.
  std::size_t clusters = 0;
  std::function<void(FrameId, const std::string&)> frame = [&](FrameId f, const std::string& indent) {
    const auto& fr = p.frame(f);
    if (f.index() != 0)
      out << indent << "subgraph cluster_f" << f.value << " {\n" << indent << "  label=\""
          << (fr.kind == Frame::Kind::function ? "function " + dot_escape(fr.name)
                                               : "frame " + dot_escape(fr.name) + " (parallel_iterations " +
                                                     std::to_string(fr.parallel_iterations) + ")")
          << "\";\n" << indent << "  style=dashed; color=gray40;\n";
    const auto inner = f.index() == 0 ? indent : indent + "  ";
    std::function<void(const Scope&, const std::string&, const std::string&)> scope = [&](const Scope& sc,
                                                                                              const std::string& path,
                                                                                              const std::string& in) {
      for (auto n : sc.nodes)
        out << in << "n" << n.value << " [label=\"" << dot_escape(p.label(n)) << "\", tooltip=\"" << dot_escape(p.node(n).name())
            << "\"" << (racing[n.index()] ? ", color=red, penwidth=2" : "") << "];\n";
      for (const auto& [name, child] : sc.children) {
        const auto full = path.empty() ? name : path + "/" + name;
        if (child.size() < 2) {
          scope(child, full, in);
          continue;
        }
        out << in << "subgraph cluster_s" << ++clusters << " {\n"
            << in << "  label=\"" << dot_escape(full) << "\"; style=rounded; color=gray70;\n";
        scope(child, full, in + "  ");
        out << in << "}\n";
      }
    };
    scope(scopes(p, fr.nodes), "", inner);
    for (auto child : fr.children) frame(child, inner);
    if (f.index() != 0) out << indent << "}\n";
  };
  frame(FrameId(std::uint32_t{0}), "  ");
  for (std::size_t f = 1; f < p.frames().size(); ++f)
    if (p.frames()[f].kind == Frame::Kind::function) frame(FrameId(f), "  ");
  for (std::size_t i = 0; i < p.edges().size(); ++i) {
    const auto& e = p.edge(EdgeId(i));
    std::string from = "n" + std::to_string(e.src.value), to = "n" + std::to_string(e.dst.value);
    if (e.is_input()) {
      from = "in" + std::to_string(i);
      out << "  " << from << " [shape=point, style=invis];\n";
    }
    if (e.is_output()) {
      to = "out" + std::to_string(i);
      out << "  " << to << " [shape=point, style=invis];\n";
    }
    std::string label;
    if (state) {  // the edge's contents in every context, as "v" in the root and "v @while:2" in a loop
      for (const auto& [slot, c] : state->in_transit)
        if (slot.edge == EdgeId(i))
          label += (label.empty() ? "" : "\n") + content_to_string(p, c, 8) +
                   (slot.context == kRootContext ? "" : " @" + context_to_string(p, sem.contexts(), slot.context));
    } else if (!p.fetch(e).empty()) {
      label = p.fetch(e);
    }
    out << "  " << from << " -> " << to << " [style=" << edge_style(e.kind) << ", tooltip=\"" << dot_escape(e.name()) << "\"";
    if (!label.empty()) out << ", label=\"" << dot_escape(label) << "\"";
    out << "];\n";
  }
  if (state) {
    std::string vars;
    for (std::size_t x = 0; x < state->var_value.size(); ++x)
      vars += p.variable(VarId(x)).name + " = " + state->var_value[x].to_string(8) + "\n";
    out << "  varvalue [shape=note, label=\"VarValue\\l" << dot_escape(vars) << "\"];\n";
  }
  out << races.str() << "}\n";
  return out.str();
}

}  // namespace tfsem::cli
