#include "semantics/frames.hpp"

#include <boost/graph/strong_components.hpp>
#include <boost/graph/adjacency_list.hpp>

#include <algorithm>
#include <map>

namespace tfsem {

class FrameBuilder {
 public:
  FrameBuilder(Program& p, std::vector<Diagnostic>& diags) : p_(p), diags_(diags) {}

  void run() {
    p_.frames_.assign(1, Frame{});  // the root frame
    kinds_.reserve(p_.nodes_.size());
    for (const auto& n : p_.nodes_) kinds_.push_back(n.op.kind);
    root_only_ = std::none_of(kinds_.begin(), kinds_.end(), [](OpKind k) {
      return k == OpKind::enter || k == OpKind::exit || k == OpKind::next_iteration || k == OpKind::call ||
             k == OpKind::return_;
    });
    // Each phase needs the previous ones' rules to hold: after an error, later
    // phases would only report its follow-ons.
    mark_back_edges();
    mark_call_edges();
    if (failed_ || !order_acyclic()) return;
    assign_frames();
    if (failed_) return;
    check_loops();
    check_calls();
    if (failed_) return;
    fill_tables();
    find_outer_frames();
    resolve_variables();
    check_fetches();
    p_.control_flow_ = std::any_of(kinds_.begin(), kinds_.end(), [](OpKind k) {
      return k != OpKind::function && k != OpKind::var && k != OpKind::read && k != OpKind::assign && k != OpKind::send &&
             k != OpKind::recv;
    });
  }

 private:
  Program& p_;
  std::vector<Diagnostic>& diags_;
  bool failed_ = false;
  std::vector<FrameId> frame_out_;  // by node: the frame of the tokens it produces
  std::vector<NodeId> first_enter_;  // by frame: the Enter (or Call) that created it
  std::vector<OpKind> kinds_;        // by node: its op's kind, a byte each (the passes over the edges read
                                     // their ends' kinds at random, and a Node is 96 bytes)
  // No Enter, Exit, NextIteration, Call or Return: no token changes frame, so
  // every node and edge stays in the root frame, where it starts, and no edge
  // is a back edge or a call edge (the passes that find them are skipped).
  bool root_only_ = false;

  void error(std::string rule, std::string_view where, std::string_view subject, std::string message) {
    diags_.push_back({std::move(rule), std::string(where), std::string(subject), std::move(message)});
    failed_ = true;
  }
  static std::string node_subject(const Node& n) { return "node '" + n.name() + "'"; }
  [[nodiscard]] std::string frame_text(FrameId f) const {
    const auto& frame = p_.frames_[f.index()];
    switch (frame.kind) {
      case Frame::Kind::root: return "the root frame";
      case Frame::Kind::loop: return "loop frame '" + frame.name + "'";
      case Frame::Kind::function: return "the frame of function '" + frame.name + "'";
    }
    return "?";
  }
  [[nodiscard]] OpKind kind(NodeId n) const { return kinds_[n.index()]; }

  // A back edge leaves a NextIteration; G-LOOP: it is a data edge into a Merge.
  void mark_back_edges() {
    if (root_only_) return;
    for (auto& e : p_.edges_) {
      if (!e.src.valid() || kind(e.src) != OpKind::next_iteration) continue;
      e.back = true;
      const auto& src = p_.node(e.src);
      if (e.kind == EdgeKind::control)
        error("G-LOOP", p_.where(e), "edge '" + e.name() + "'",
              "a NextIteration has no outgoing control edges: its only output is the next iteration's value for a Merge");
      else if (e.is_output() || kind(e.dst) != OpKind::merge)
        error("G-LOOP", p_.where(e), "edge '" + e.name() + "'",
              "NextIteration '" + src.name() + "' must feed a Merge of its loop, which takes the next iteration's value");
    }
  }

  // A call edge crosses into a function frame (a Call's data output) or out of
  // one (a Return's data input); with recursion, G's cycles pass through them.
  void mark_call_edges() {
    if (root_only_) return;
    for (auto& e : p_.edges_)
      e.call = e.kind != EdgeKind::control && ((e.src.valid() && kind(e.src) == OpKind::call) ||
                                               (e.dst.valid() && kind(e.dst) == OpKind::return_));
  }

  // G without its back edges and call edges, whose out-edges keep the order of
  // the edges: out[first[v] .. first[v + 1]) are v's successors.
  struct Successors {
    std::vector<std::uint32_t> first, out;
  };
  [[nodiscard]] bool in_dag(const Edge& e) const { return e.src.valid() && e.dst.valid() && !e.back && !e.call; }
  [[nodiscard]] Successors successors() const {
    Successors g;
    g.first.assign(p_.nodes_.size() + 1, 0);
    for (const auto& e : p_.edges_)
      if (in_dag(e)) ++g.first[e.src.index() + 1];
    for (std::size_t v = 0; v < p_.nodes_.size(); ++v) g.first[v + 1] += g.first[v];
    g.out.resize(g.first.back());
    auto next = g.first;
    for (const auto& e : p_.edges_)
      if (in_dag(e)) g.out[next[e.src.index()]++] = e.dst.value;
    return g;
  }

  // G-DAG: G without its back edges and call edges is acyclic; its topological
  // order, the reverse of the order in which a depth-first search from nodes
  // 0, 1, ... finishes them (as Boost's topological_sort gives it).
  bool order_acyclic() {
    const auto g = successors();
    enum Color : std::uint8_t { white, gray, black };
    std::vector<Color> color(p_.nodes_.size(), white);
    std::vector<std::pair<std::uint32_t, std::uint32_t>> stack;  // a node, and its next out-edge
    std::vector<NodeId> finished;
    finished.reserve(p_.nodes_.size());
    for (std::uint32_t root = 0; root < p_.nodes_.size(); ++root) {
      if (color[root] != white) continue;
      color[root] = gray;
      stack.emplace_back(root, g.first[root]);
      while (!stack.empty()) {
        auto& [v, next] = stack.back();
        if (next == g.first[v + 1]) {
          color[v] = black;
          finished.emplace_back(v);
          stack.pop_back();
          continue;
        }
        const auto w = g.out[next++];
        if (color[w] == gray) return report_cycles();
        if (color[w] == white) {
          color[w] = gray;
          stack.emplace_back(w, g.first[w]);
        }
      }
    }
    p_.topo_.assign(finished.rbegin(), finished.rend());
    return true;
  }

  // G-DAG's error: each cycle once, as a strongly connected component.
  bool report_cycles() {
    using Graph = boost::adjacency_list<boost::vecS, boost::vecS, boost::directedS>;
    Graph g(p_.nodes_.size());
    for (const auto& e : p_.edges_)
      if (in_dag(e)) boost::add_edge(e.src.index(), e.dst.index(), g);
    std::vector<std::size_t> component(boost::num_vertices(g));
    const auto count = boost::strong_components(g, component.data());
    std::vector<std::vector<std::string_view>> members(count);
    for (std::size_t v = 0; v < component.size(); ++v) members[component[v]].push_back(p_.nodes_[v].name());
    for (std::size_t v = 0; v < component.size(); ++v) {
      auto& m = members[component[v]];
      if (m.size() > 1 || boost::edge(v, v, g).second) {
        std::string list;
        for (const auto s : m) list.append(list.empty() ? "" : ", ").append(s);
        error("G-DAG", p_.where(p_.nodes_[v]), node_subject(p_.nodes_[v]),
              "is on a cycle through nodes {" + list +
                  "}; G must be a DAG, except that a loop's cycle passes a NextIteration into a Merge, and a "
                  "recursive call's through a Call and a Return");
        m.clear();  // report each cycle once
      }
    }
    return false;
  }

  // An Enter's parallel_iterations as given (C-BOUND), TensorFlow's default if absent.
  static std::int64_t parallel_iterations(const Node& n) {
    const auto it = n.attrs().find(kParallelIterationsAttr);
    return it == n.attrs().end() ? kDefaultParallelIterations : std::get<std::int64_t>(it->second);
  }

  // The frame an Enter's tokens go into: created at its first Enter.
  FrameId enter_frame(NodeId id, FrameId from) {
    const auto& n = p_.node(id);
    const auto& name = std::get<std::string>(n.attrs().at(std::string(kFrameAttr)));
    const auto bound = parallel_iterations(n);
    if (name.empty())
      error("G-ATTR", p_.where(n) + "/attrs/frame", node_subject(n),
            "the frame name is empty; an Enter names the loop frame it enters");
    if (bound < 1 || bound > (1 << 20))
      error("G-ATTR", p_.where(n) + "/attrs/parallel_iterations", node_subject(n),
            "parallel_iterations is a number of iterations in [1, 2^20], not " + std::to_string(bound));
    auto& frames = p_.frames_;
    for (std::size_t f = 1; f < frames.size(); ++f) {
      if (frames[f].name != name) continue;
      if (frames[f].kind == Frame::Kind::function) {
        error("G-FRAME", p_.where(n) + "/attrs/frame", node_subject(n),
              "names frame '" + name + "', which is a function's; a loop frame needs a name of its own");
        return FrameId(f);
      }
      if (frames[f].parent != from)
        error("G-FRAME", p_.where(n), node_subject(n),
              "enters frame '" + name + "' from " + frame_text(from) + ", but node '" + p_.node(first_enter_[f]).name() +
                  "' enters it from " + frame_text(frames[f].parent));
      // Compared as given: an out-of-range bound is stored clamped, and is reported above.
      else if (const auto first = parallel_iterations(p_.node(first_enter_[f])); first != bound)
        error("G-FRAME", p_.where(n), node_subject(n),
              "gives frame '" + name + "' parallel_iterations " + std::to_string(bound) + ", but node '" +
                  p_.node(first_enter_[f]).name() + "' gives it " + std::to_string(first));
      return FrameId(f);
    }
    Frame frame;
    frame.kind = Frame::Kind::loop;
    frame.name = name;
    frame.parent = from;
    frame.depth = frames[from.index()].depth + 1;
    frame.parallel_iterations = static_cast<std::uint32_t>(std::clamp<std::int64_t>(bound, 1, 1 << 20));
    frames.push_back(std::move(frame));
    first_enter_.resize(frames.size());
    first_enter_.back() = id;
    return FrameId(frames.size() - 1);
  }

  // The frame of the function a Call or Return names: created at the first.
  FrameId function_frame(NodeId id) {
    const auto& n = p_.node(id);
    const auto& name = std::get<std::string>(n.attrs().at(std::string(kFunctionAttr)));
    auto& frames = p_.frames_;
    for (std::size_t f = 1; f < frames.size(); ++f)
      if (frames[f].name == name && frames[f].kind == Frame::Kind::function) return FrameId(f);
    Frame frame;
    frame.kind = Frame::Kind::function;
    frame.name = name;
    frame.parallel_iterations = 0;
    frames.push_back(std::move(frame));
    first_enter_.resize(frames.size());
    first_enter_.back() = id;
    return FrameId(frames.size() - 1);
  }

  // The frame the tokens on edge e live in, once its source's frame is known;
  // a Call's data outputs are in its function's frame whatever the order.
  FrameId edge_frame(const Edge& e) {
    if (e.is_input()) return FrameId(std::uint32_t{0});
    if (kind(e.src) == OpKind::call) return e.kind == EdgeKind::control ? p_.node(e.src).frame : frame_out_[e.src.index()];
    return frame_out_[e.src.index()];
  }

  // G-FRAME: every node's incoming edges (back edges aside) bring tokens of one
  // frame, which is the node's; Enter and Exit change the frame of their
  // outputs, Call puts its argument in its function's frame, and a Return is in
  // its caller's frame (that of its Call's control edge), its data input in the
  // function's (check_calls).
  void assign_frames() {
    if (root_only_) {
      frame_out_.assign(p_.nodes_.size(), FrameId(std::uint32_t{0}));
      return;
    }
    frame_out_.assign(p_.nodes_.size(), FrameId{});
    for (std::size_t i = 0; i < p_.nodes_.size(); ++i)
      if (kind(NodeId(i)) == OpKind::call) frame_out_[i] = function_frame(NodeId(i));
    for (auto n : p_.topo_) {
      auto& node = p_.nodes_[n.index()];
      std::optional<std::pair<FrameId, EdgeId>> first;
      for (const auto* edges : {&node.in, &node.control_in})
        for (auto d : *edges) {
          const auto& e = p_.edges_[d.index()];
          if (e.back || (e.call && e.dst == n && node.op.kind == OpKind::return_)) continue;
          const auto f = edge_frame(e);
          if (!f.valid()) return;  // an earlier error left the source without a frame
          if (!first) first.emplace(f, d);
          else if (first->first != f) {
            // The node has no frame: its successors' frames would be guesses.
            error("G-FRAME", p_.where(node), node_subject(node),
                  "its inputs come from different frames: edge '" + p_.edges_[first->second.index()].name() + "' from " +
                      frame_text(first->first) + ", edge '" + e.name() + "' from " + frame_text(f) +
                      (e.is_input() || p_.edges_[first->second.index()].is_input() ? " (input edges feed the root frame)" : ""));
            return;
          }
        }
      if (!first) {
        if (node.op.kind == OpKind::return_)
          error("G-CALL", p_.where(node), node_subject(node),
                "has no control edge from a Call: a Return takes one from each Call of its site, so that a call not "
                "made (a DEAD argument) still returns DEAD");
        else
          error("G-LOOP", p_.where(node), node_subject(node),
                "its only inputs come from NextIteration: a loop's Merge also needs the value that enters the loop");
        return;
      }
      node.frame = first->first;
      switch (node.op.kind) {
        case OpKind::enter: frame_out_[n.index()] = enter_frame(n, node.frame); break;
        case OpKind::call: break;  // into its function's frame (set above)
        case OpKind::exit:
          if (p_.frames_[node.frame.index()].kind != Frame::Kind::loop) {
            error("G-FRAME", p_.where(node), node_subject(node),
                  "an Exit leaves a loop frame, but its input is in " + frame_text(node.frame));
            return;
          }
          frame_out_[n.index()] = p_.frames_[node.frame.index()].parent;
          break;
        case OpKind::next_iteration:
          if (p_.frames_[node.frame.index()].kind != Frame::Kind::loop) {
            error("G-FRAME", p_.where(node), node_subject(node),
                  "a NextIteration belongs to a loop frame, but its input is in " + frame_text(node.frame));
            return;
          }
          [[fallthrough]];
        default: frame_out_[n.index()] = node.frame; break;
      }
    }
    for (auto& e : p_.edges_) {
      e.frame = edge_frame(e);
      e.invariant = e.src.valid() && kind(e.src) == OpKind::enter && constant_enter(p_.node(e.src));
      if (e.back && e.dst.valid() && p_.node(e.dst).frame != e.frame)
        error("G-FRAME", p_.where(e), "edge '" + e.name() + "'",
              "NextIteration '" + p_.node(e.src).name() + "' in " + frame_text(e.frame) + " feeds Merge '" +
                  p_.node(e.dst).name() + "' in " + frame_text(p_.node(e.dst).frame) + "; a loop's back edge stays in its frame");
    }
  }

  static bool constant_enter(const Node& n) {
    const auto it = n.attrs().find(kConstantAttr);
    return it != n.attrs().end() && std::get<bool>(it->second);
  }

  // G-LOOP: a loop Merge (one with a back edge) has a data input that enters the loop.
  void check_loops() {
    for (const auto& node : p_.nodes_) {
      if (node.op.kind != OpKind::merge) continue;
      const auto back = std::count_if(node.in.begin(), node.in.end(), [&](EdgeId d) { return p_.edge(d).back; });
      if (back > 0 && back == static_cast<std::ptrdiff_t>(node.in.size()))
        error("G-LOOP", p_.where(node), node_subject(node),
              "its only data inputs come from NextIteration: a loop's Merge also needs the value that enters the loop");
    }
  }

  static std::int64_t site(const Node& n) { return std::get<std::int64_t>(n.attrs().at(std::string(kSiteAttr))); }
  [[nodiscard]] const std::string& function(const Node& n) const {
    return std::get<std::string>(n.attrs().at(std::string(kFunctionAttr)));
  }

  // G-CALL: the Calls of one site are in one frame, the caller's, and their
  // control edges go to the site's Returns; a Return has a site with Calls, is
  // in the caller's frame, takes a control edge from a Call of its site (so
  // that a call not made returns DEAD), and its data from the function's frame.
  void check_calls() {
    std::map<std::pair<std::string, std::int64_t>, NodeId> first_call;
    for (std::size_t i = 0; i < p_.nodes_.size(); ++i) {
      const auto& n = p_.nodes_[i];
      if (n.op.kind != OpKind::call) continue;
      const auto k = site(n);
      if (k < 0 || k > (std::int64_t{1} << 30))
        error("G-ATTR", p_.where(n) + "/attrs/site", node_subject(n), "a call site is a number in [0, 2^30], not " + std::to_string(k));
      const auto [it, fresh] = first_call.emplace(std::pair{function(n), k}, NodeId(i));
      if (!fresh && p_.node(it->second).frame != n.frame)
        error("G-CALL", p_.where(n), node_subject(n),
              "calls '" + function(n) + "' at site " + std::to_string(k) + " from " + frame_text(n.frame) + ", but node '" +
                  p_.node(it->second).name() + "' makes that call from " + frame_text(p_.node(it->second).frame) +
                  "; the Calls of one site are in one frame");
      for (auto e : n.control_out) {
        const auto& edge = p_.edge(e);
        const auto& dst = p_.node(edge.dst);
        if (edge.is_output() || dst.op.kind != OpKind::return_ || function(dst) != function(n) || site(dst) != k)
          error("G-CALL", p_.where(edge), "edge '" + edge.name() + "'",
                "a Call's control edges go to the Returns of its own site ('" + function(n) + "' at site " +
                    std::to_string(k) + "), which they tell whether the call was made");
      }
    }
    for (const auto& n : p_.nodes_) {
      if (n.op.kind != OpKind::return_) continue;
      const auto it = first_call.find({function(n), site(n)});
      if (it == first_call.end()) {
        error("G-CALL", p_.where(n), node_subject(n),
              "returns from '" + function(n) + "' at site " + std::to_string(site(n)) + ", but no Call makes that call");
        continue;
      }
      const auto from_call = std::any_of(n.control_in.begin(), n.control_in.end(), [&](EdgeId d) {
        const auto& e = p_.edge(d);
        return !e.is_input() && p_.node(e.src).op.kind == OpKind::call && function(p_.node(e.src)) == function(n) &&
               site(p_.node(e.src)) == site(n);
      });
      if (!from_call)
        error("G-CALL", p_.where(n), node_subject(n),
              "has no control edge from a Call of its site ('" + function(n) + "' at site " + std::to_string(site(n)) +
                  "): a call not made (a DEAD argument) would never return");
      const auto& data = p_.edge(n.in[0]);
      const auto want = frame_out_[it->second.index()];
      if (data.frame != want)
        error("G-CALL", p_.where(data), "edge '" + data.name() + "'",
              "the data input of Return '" + n.name() + "' comes from " + frame_text(data.frame) +
                  ", but a result of '" + function(n) + "' comes from " + frame_text(want));
    }
  }

  // Every frame whose contexts may enclose a context of f: a loop's parents,
  // and the frames a function is called from, transitively.
  void find_outer_frames() {
    auto& frames = p_.frames_;
    for (std::size_t f = 1; f < frames.size(); ++f) {
      std::vector<bool> seen(frames.size(), false);
      std::vector<FrameId> todo{FrameId(f)};
      while (!todo.empty()) {
        const auto g = todo.back();
        todo.pop_back();
        const auto& frame = frames[g.index()];
        std::vector<FrameId> up;
        if (frame.kind == Frame::Kind::loop) up.push_back(frame.parent);
        for (auto c : frame.calls) up.push_back(p_.node(c).frame);
        for (auto u : up)
          if (!seen[u.index()]) {
            seen[u.index()] = true;
            todo.push_back(u);
          }
      }
      for (std::size_t g = 0; g < frames.size(); ++g)
        if (seen[g]) frames[f].outer.emplace_back(g);
    }
  }

  void fill_tables() {
    auto& frames = p_.frames_;
    if (frames.size() == 1) {  // every node and edge in the root frame (most large graphs): sized exactly
      frames[0].nodes.reserve(p_.nodes_.size());
      frames[0].records.reserve(p_.nodes_.size());
      frames[0].slots.reserve(p_.edges_.size());
    }
    for (std::size_t i = 0; i < p_.nodes_.size(); ++i) {
      const NodeId n(i);
      const auto& node = p_.nodes_[i];
      auto& f = frames[node.frame.index()];
      f.nodes.push_back(n);
      switch (node.op.kind) {
        case OpKind::enter: frames[frame_out_[i].index()].enters.push_back(n); break;
        case OpKind::exit: f.exits.push_back(n); break;
        case OpKind::next_iteration: f.next_iterations.push_back(n); break;
        case OpKind::call: frames[frame_out_[i].index()].calls.push_back(n); break;
        default: break;
      }
      // C-ONCE: an Exit fires once per frame instance, recorded in the parent's context.
      frames[(node.op.kind == OpKind::exit ? f.parent : node.frame).index()].records.push_back(n);
    }
    for (std::size_t i = 0; i < p_.edges_.size(); ++i) frames[p_.edges_[i].frame.index()].slots.emplace_back(i);
    for (std::size_t f = 1; f < frames.size(); ++f)
      if (frames[f].kind == Frame::Kind::loop) frames[frames[f].parent.index()].children.emplace_back(f);
  }

  // G-REF: the variable a Read or Assign-f accesses is static. A variable edge
  // carries the handle of a Var(x) node or an input edge, passed on by Ref ops.
  void resolve_variables() {
    p_.access_var_.assign(p_.nodes_.size(), VarId{});
    // Without variable edges, no Read, Assign-f or dereferencing function has one to resolve.
    if (std::none_of(p_.edges_.begin(), p_.edges_.end(), [](const Edge& e) { return e.kind == EdgeKind::variable; })) return;
    enum class State : std::uint8_t { unknown, known, conflict };
    struct Handle {
      State state = State::unknown;
      VarId var{};
      EdgeId other{};  // for a conflict: an edge with another variable,
      VarId other_var{};  // and that variable
    };
    std::vector<Handle> handle(p_.edges_.size());
    auto join = [&](Handle& into, const Handle& h, EdgeId via) {
      if (h.state == State::unknown || into.state == State::conflict) return false;
      if (h.state == State::conflict) return into = h, true;
      if (into.state == State::unknown) return into = h, true;
      if (into.var == h.var) return false;
      into = {State::conflict, into.var, via, h.var};
      return true;
    };
    for (std::size_t i = 0; i < p_.edges_.size(); ++i) {
      const auto& e = p_.edges_[i];
      if (e.kind != EdgeKind::variable) continue;
      if (e.is_input()) handle[i] = {State::known, std::get<VarId>(p_.initial(EdgeId(i))), {}};
      else if (kind(e.src) == OpKind::var) handle[i] = {State::known, p_.node(e.src).op.var, {}};
    }
    for (bool changed = true; changed;) {
      changed = false;
      for (const auto& node : p_.nodes_) {
        if (!node.op.ref) continue;
        Handle h;
        for (auto d : node.in)
          if (p_.edge(d).kind == EdgeKind::variable) join(h, handle[d.index()], d);
        for (auto e : node.out)
          if (p_.edge(e).kind == EdgeKind::variable) changed = join(handle[e.index()], h, e) || changed;
      }
    }
    for (std::size_t i = 0; i < p_.nodes_.size(); ++i) {
      const auto& node = p_.nodes_[i];
      if (node.op.kind != OpKind::read && node.op.kind != OpKind::assign && node.op.kind != OpKind::function &&
          node.op.kind != OpKind::send)
        continue;
      // A Read's, Assign-f's or Send's variable edge is its port 0; a function's (S-DEREF) any one port.
      const auto d = std::find_if(node.in.begin(), node.in.end(), [&](EdgeId e) { return e.valid() && p_.edge(e).kind == EdgeKind::variable; });
      if (d == node.in.end()) continue;
      const auto& h = handle[d->index()];
      if (h.state == State::known) p_.access_var_[i] = h.var;
      else
        error("G-REF", p_.where(node), node_subject(node),
              h.state == State::unknown
                  ? "its variable edge carries no variable handle: it comes from no Var node or input edge"
                  : "its variable edge may carry variable '" + p_.variable(h.var).name + "' or, through edge '" +
                        p_.edge(h.other).name() + "', variable '" + p_.variable(h.other_var).name +
                        "'; the variable a Read, Assign-f or dereferencing function accesses must be static");
    }
  }

  // G-FETCH: a fetched output leaves a node of the root frame (a run's outputs
  // are the root context's).
  void check_fetches() {
    if (root_only_) return;
    for (const auto& e : p_.edges_)
      if (!p_.fetch(e).empty() && e.frame.index() != 0)
        error("G-FETCH", p_.where(e) + "/fetch", "edge '" + e.name() + "'",
              "a fetched output leaves a node of the root frame, and this one leaves " + frame_text(e.frame) +
                  "; give it \"fetch\": \"\" to drop its values, or fetch it after an Exit");
  }
};

void build_frames(Program& p, std::vector<Diagnostic>& diags) { FrameBuilder(p, diags).run(); }

}  // namespace tfsem
