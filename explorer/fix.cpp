#include "explorer/fix.hpp"

#include "semantics/diagnostic.hpp"

#include <algorithm>
#include <new>

namespace tfsem::explorer {

namespace {

using Edges = std::vector<std::pair<NodeId, NodeId>>;
using Loops = std::vector<FrameId>;
using Atomics = std::vector<NodeId>;
using Barriers = std::vector<VarId>;

// An update of x that is not atomic (TensorFlow 1's use_locking=false): a
// Read of x whose value goes to port 0 of a function m of two arguments alone,
// m's value to a Write of x alone. Atomic, it is the Assign-m of x with m's
// other argument, as use_locking=true makes it.
struct ReadModifyWrite {
  NodeId read, modify, write;
};

std::optional<ReadModifyWrite> read_modify_write(const Semantics& sem, NodeId w) {
  const auto& p = sem.program();
  const auto& write = p.node(w);
  if (write.op.kind != OpKind::assign || write.op.fn->name != "Snd") return std::nullopt;
  const auto& value = p.edge(write.in[1]);
  if (value.is_input()) return std::nullopt;
  const auto& modify = p.node(value.src);
  const auto* f = modify.op.fn;
  if (modify.op.kind != OpKind::function || f->inputs != 2 || f->outputs != 1 || f->nondeterministic) return std::nullopt;
  const auto& old = p.edge(modify.in[0]);
  if (old.is_input() || p.node(old.src).op.kind != OpKind::read || sem.access(old.src).var != sem.access(w).var)
    return std::nullopt;
  if (modify.frame != write.frame || p.node(old.src).frame != write.frame) return std::nullopt;
  return ReadModifyWrite{old.src, value.src, w};
}

// The update u made atomic in spec: its Write becomes Assign-m taking m's
// other argument; its Read, m and the Read's Var node go, and their control
// edges (what they waited for, what waited for them) go to the Assign-m.
void make_atomic(const Semantics& sem, const ReadModifyWrite& u, ProgramSpec& spec) {
  const auto& p = sem.program();
  const auto& read = p.node(u.read);
  const std::string w = p.node(u.write).name().str(), m = p.node(u.modify).name().str();
  std::vector<std::string> gone = {read.name().str(), m};
  if (const auto& handle = p.edge(read.in[0]); !handle.is_input() && p.node(handle.src).out.size() == 1 &&
                                                  p.node(handle.src).control_out.empty())
    gone.push_back(p.node(handle.src).name().str());
  const auto removed = [&](const OptionalPortRef& end) {
    return end && std::find(gone.begin(), gone.end(), end->node.str()) != gone.end();
  };
  std::vector<EdgeSpec> edges;
  for (auto& e : spec.edges) {
    if (e.to && e.to->node.str() == m && e.to->port.value_or(0) == 1) e.to = PortRef{w, 1};  // m's other argument
    if (e.kind.str() == "control" && removed(e.to) && !removed(e.from)) e.to = PortRef{w, std::nullopt};
    if (e.kind.str() == "control" && removed(e.from) && !removed(e.to)) e.from = PortRef{w, std::nullopt};
    const bool onto_itself = e.kind.str() == "control" && e.from && e.to && e.from->node == e.to->node;
    if (!removed(e.from) && !removed(e.to) && !onto_itself) edges.push_back(std::move(e));
  }
  spec.edges = std::move(edges);
  std::erase_if(spec.nodes, [&](const NodeSpec& n) { return std::find(gone.begin(), gone.end(), n.id.str()) != gone.end(); });
  for (auto& n : spec.nodes)
    if (n.id.str() == w) n.op = "Assign-" + std::string(p.node(u.modify).op.fn->name);
}

// A barrier on x between concurrent runs: a control edge from each read of x
// (not the Read of a non-atomic update) to each update of x that no control
// edge of the user's may order after it (another run's), at the update's
// first node (the Read of a non-atomic one, whose edges go to its Assign-f
// once it is made atomic).
Edges barrier_edges(const Semantics& sem, VarId x, const FixOptions& o) {
  const auto& p = sem.program();
  std::vector<NodeId> reads, updates;
  for (std::size_t i = 0; i < p.nodes().size(); ++i) {
    const NodeId n(i);
    const auto access = sem.access(n);
    if (access.var != x) continue;
    if (access.kind == Access::Kind::update) {
      const auto u = read_modify_write(sem, n);
      updates.push_back(u ? u->read : n);
    } else if (access.kind == Access::Kind::read) {
      reads.push_back(n);
    }
  }
  std::erase_if(reads, [&](NodeId r) { return std::find(updates.begin(), updates.end(), r) != updates.end(); });
  Edges out;
  for (auto r : reads)
    for (auto u : updates)
      if (!o.may_order(p, r, u)) out.emplace_back(r, u);
  return out;
}

class FixSearch {
 public:
  FixSearch(const Semantics& sem, const FixOptions& o) : sem_(sem), o_(o) {}

  // The fixed graph's outcomes, one per path condition, if adding `edges`,
  // running `loops` one iteration at a time, making the updates of `atomics`
  // atomic and synchronizing the runs on `barriers` makes it deterministic
  // without violations.
  std::optional<Fix> verify(const Edges& edges, const Loops& loops, const Atomics& atomics = {}, const Barriers& barriers = {}) {
    if (spent_ >= o_.max_explorations || stopped()) return std::nullopt;
    if (o_.may_order && !std::all_of(edges.begin(), edges.end(), [&](const auto& e) { return o_.may_order(sem_.program(), e.first, e.second); }))
      return std::nullopt;
    ++spent_;
    const auto& p = sem_.program();
    ProgramSpec spec = p.spec();
    auto ordered = edges;
    for (auto x : barriers) {
      const auto more = barrier_edges(sem_, x, o_);
      ordered.insert(ordered.end(), more.begin(), more.end());
    }
    for (const auto& [a, b] : ordered) {
      EdgeSpec e;
      e.id = unique_edge_id(spec, "fix_" + p.node(a).name() + "_" + p.node(b).name());
      e.kind = "control";
      e.from = PortRef{p.node(a).name(), std::nullopt};
      e.to = PortRef{p.node(b).name(), std::nullopt};
      spec.edges.push_back(std::move(e));
    }
    for (auto f : loops)
      for (auto enter : p.frame(f).enters) spec.nodes[enter.index()].attrs.edit().insert_or_assign(std::string(kParallelIterationsAttr), std::int64_t{1});
    for (auto w : atomics) make_atomic(sem_, *read_modify_write(sem_, w), spec);  // after the loops: it erases nodes
    std::shared_ptr<const Program> fixed;
    try {
      fixed = Program::build(spec);
    } catch (const InputError&) {
      return std::nullopt;  // the edges close a cycle, or join two frames
    }
    const Semantics checked(fixed, sem_.options());
    const auto r = explore(checked, o_.explore);
    if (!r.deterministic() || r.violated()) return std::nullopt;
    return Fix{edges, loops, atomics, barriers, std::move(spec), r.outcomes};
  }

  [[nodiscard]] bool budget_left() const { return spent_ < o_.max_explorations && !stopped(); }
  // The stop token (an interrupt, the timeout, the memory) ends the search for fixes.
  [[nodiscard]] bool stopped() const { return o_.explore.limits.stop != nullptr && o_.explore.limits.stop->stopped(); }

 private:
  const Semantics& sem_;
  const FixOptions& o_;
  std::size_t spent_ = 0;

  static std::string unique_edge_id(const ProgramSpec& spec, const std::string& base) {
    auto taken = [&](const std::string& id) {
      return std::any_of(spec.edges.begin(), spec.edges.end(), [&](const EdgeSpec& e) { return e.id == id; });
    };
    std::string id = base;
    for (int k = 2; taken(id); ++k) id = base + "_" + std::to_string(k);
    return id;
  }
};

// The loop whose iterations the two transitions are in, if they are in
// different iterations of one frame instance.
std::optional<FrameId> racing_loop(const Contexts& ctx, Transition a, Transition b) {
  for (std::uint32_t d = 1; d <= std::min(ctx[a.context].depth, ctx[b.context].depth); ++d) {
    const auto ca = ctx.at_depth(a.context, d), cb = ctx.at_depth(b.context, d);
    if (ca == cb) continue;
    if (ctx[ca].parent == ctx[cb].parent && ctx[ca].frame == ctx[cb].frame) return ctx[ca].frame;
    return std::nullopt;
  }
  return std::nullopt;
}

// Control edges that make `outer` fire before everything in the context that
// encloses `inner` just below outer's context (a call, or a loop, entered
// from there): from outer's node to the nodes that enter it (the Calls of the
// call site, the loop's Enters). Empty if inner is not nested in outer's context.
Edges before_context(const Semantics& sem, Transition outer, Transition inner) {
  const auto& ctx = sem.contexts();
  const auto& p = sem.program();
  const auto depth = ctx[outer.context].depth;
  if (ctx[inner.context].depth <= depth || ctx.at_depth(inner.context, depth) != outer.context) return {};
  const auto entered = ctx.at_depth(inner.context, depth + 1);
  const auto& frame = p.frame(ctx[entered].frame);
  Edges out;
  if (frame.kind == Frame::Kind::loop)
    for (auto e : frame.enters) out.emplace_back(outer.node, e);
  for (auto c : frame.calls)
    if (p.node(c).frame == p.node(outer.node).frame &&
        std::get<std::int64_t>(p.node(c).attrs().at(std::string(kSiteAttr))) == ctx[entered].iteration)
      out.emplace_back(outer.node, c);
  return out;
}

// Position of each transition in a schedule (those that do not fire come last).
std::size_t position(const Schedule& s, Transition t) {
  const auto it = std::find_if(s.begin(), s.end(), [&](const Step& step) { return step.transition() == t; });
  return static_cast<std::size_t>(it - s.begin());
}

// suggest_fixes, each fix into `fixes` as it is found.
void suggest(const Semantics& sem, const Result& r, const FixOptions& options, std::vector<Fix>& fixes) {
  if (!r.complete || (r.deterministic() && !r.violated())) return;
  const auto& p = sem.program();
  std::vector<const Race*> harmful;
  Loops racing;
  for (const auto& race : r.races) {
    if (!race.harmful) continue;
    harmful.push_back(&race);
    if (const auto loop = racing_loop(sem.contexts(), race.first, race.second))
      if (std::find(racing.begin(), racing.end(), *loop) == racing.end()) racing.push_back(*loop);
  }
  // A control edge orders two nodes in each context of their one frame.
  auto orderable = [&](const Race& race) {
    return race.first.node != race.second.node && p.node(race.first.node).frame == p.node(race.second.node).frame;
  };
  FixSearch search(sem, options);
  auto add = [&](Fix fix) {  // each fix once, whichever races found it
    const bool known = std::any_of(fixes.begin(), fixes.end(), [&](const Fix& f) {
      return f.control_edges == fix.control_edges && f.sequential_loops == fix.sequential_loops &&
             f.atomic_updates == fix.atomic_updates && f.barriers == fix.barriers;
    });
    if (!known) fixes.push_back(std::move(fix));
  };
  // Single fixes may spend half the budget; ordering every race needs the rest.
  if (2 * harmful.size() + racing.size() <= options.max_explorations / 2) {
    for (auto loop : racing)
      if (auto fix = search.verify({}, {loop})) add(std::move(*fix));
    for (const auto* race : harmful) {
      if (!orderable(*race)) {  // in different frames: the outer one before the inner one's call or loop
        for (const auto& [outer, inner] : {std::pair{race->first, race->second}, std::pair{race->second, race->first}})
          if (const auto edges = before_context(sem, outer, inner); !edges.empty())
            if (auto fix = search.verify(edges, {})) add(std::move(*fix));
        continue;
      }
      const auto a = race->first.node, b = race->second.node;
      for (const auto& edge : {std::pair{a, b}, std::pair{b, a}})
        if (auto fix = search.verify({edge}, {})) add(std::move(*fix));
    }
  }
  // If none of those works: order every harmful race as some outcome's witness
  // does, make every racing loop sequential, then drop the parts that are not needed.
  const bool order_all = fixes.empty() && !harmful.empty();
  for (const auto& outcome : r.outcomes) {
    if (!order_all || !search.budget_left()) break;
    Edges edges;
    for (const auto* race : harmful) {
      if (!orderable(*race)) continue;
      const auto a = race->first, b = race->second;
      const auto edge = position(outcome.witness, a) < position(outcome.witness, b) ? std::pair{a.node, b.node}
                                                                                   : std::pair{b.node, a.node};
      if (std::find(edges.begin(), edges.end(), edge) == edges.end()) edges.push_back(edge);
    }
    auto fix = search.verify(edges, racing);
    if (!fix) continue;
    for (std::size_t i = fix->control_edges.size(); i-- > 0 && fix->control_edges.size() + fix->sequential_loops.size() > 1;) {
      auto fewer = fix->control_edges;
      fewer.erase(fewer.begin() + static_cast<std::ptrdiff_t>(i));
      if (auto smaller = search.verify(fewer, fix->sequential_loops)) fix = std::move(smaller);
    }
    for (std::size_t i = fix->sequential_loops.size(); i-- > 0 && fix->control_edges.size() + fix->sequential_loops.size() > 1;) {
      auto fewer = fix->sequential_loops;
      fewer.erase(fewer.begin() + static_cast<std::ptrdiff_t>(i));
      if (auto smaller = search.verify(fix->control_edges, fewer)) fix = std::move(smaller);
    }
    add(std::move(*fix));
  }
  // Last, with the budget left: each variable of a harmful race whose updates
  // are not all atomic, those updates made atomic (use_locking), then every
  // such variable's at once.
  Atomics updates, every;  // every update that is not atomic
  for (std::size_t i = 0; i < p.nodes().size(); ++i)
    if (read_modify_write(sem, NodeId(i))) updates.push_back(NodeId(i));
  const auto updates_of = [&](VarId x) {
    Atomics out;
    std::copy_if(updates.begin(), updates.end(), std::back_inserter(out), [&](NodeId w) { return sem.access(w).var == x; });
    return out;
  };
  std::vector<Atomics> by_var;
  for (const auto* race : harmful) {
    const auto atomics = updates_of(race->var);
    if (atomics.empty() || std::find(by_var.begin(), by_var.end(), atomics) != by_var.end()) continue;
    by_var.push_back(atomics);
    every.insert(every.end(), atomics.begin(), atomics.end());
  }
  if (by_var.size() > 1) by_var.push_back(every);
  for (const auto& atomics : by_var)
    if (auto fix = search.verify({}, {}, atomics)) add(std::move(*fix));
  // Concurrent runs: a barrier on each variable of a harmful race between two
  // runs, its updates made atomic (what no control edge of a run can order).
  if (!options.may_order || !fixes.empty()) return;
  Barriers vars;
  for (const auto* race : harmful)
    if (!options.may_order(p, race->first.node, race->second.node) &&
        std::find(vars.begin(), vars.end(), race->var) == vars.end())
      vars.push_back(race->var);
  for (auto x : vars)
    if (auto fix = search.verify({}, {}, updates_of(x), {x})) add(std::move(*fix));
}

}  // namespace

std::vector<Fix> suggest_fixes(const Semantics& sem, const Result& r, const FixOptions& options) {
  std::vector<Fix> fixes;
  try {
    suggest(sem, r, options, fixes);
  } catch (const std::bad_alloc&) {
    const auto* token = options.explore.limits.stop;
    if (token == nullptr) throw;
    token->out_of_memory();  // the fixes found so far stay
  }
  return fixes;
}

std::string fix_text(const Program& p, const Fix& f) {
  std::string out;
  if (!f.control_edges.empty()) {
    out = f.control_edges.size() > 1 ? "add control edges " : "add control edge ";
    for (std::size_t i = 0; i < f.control_edges.size(); ++i)
      out += (i ? ", " : "") + p.node(f.control_edges[i].first).name() + " -> " + p.node(f.control_edges[i].second).name();
  }
  for (auto loop : f.sequential_loops)
    out += (out.empty() ? "" : "; ") + std::string("set parallel_iterations 1 for loop '") + p.frame(loop).name + "'";
  if (!f.atomic_updates.empty()) {
    out += (out.empty() ? "" : "; ") + std::string("make atomic (use_locking) the update") + (f.atomic_updates.size() > 1 ? "s " : " ");
    for (std::size_t i = 0; i < f.atomic_updates.size(); ++i) out += (i ? ", " : "") + std::string(p.node(f.atomic_updates[i]).name());
  }
  for (auto x : f.barriers)
    out += (out.empty() ? "" : "; ") + std::string("synchronize the runs on ") + p.variable(x).name +
           " (every run's reads of it before any other run's update, as SyncReplicasOptimizer's barrier)";
  return out;
}

std::string fix_outcomes_text(const Semantics& sem, const Fix& f) {
  std::string out;
  for (const auto& o : f.outcomes) out += (out.empty() ? "" : " | ") + outcome_text(sem, o);
  return out;
}

}  // namespace tfsem::explorer
