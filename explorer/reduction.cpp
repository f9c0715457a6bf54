#include "explorer/reduction.hpp"

#include <algorithm>

namespace tfsem::explorer {

namespace {

bool conflict(const Access& a, const Access& b) {
  return a.kind != Access::Kind::none && b.kind != Access::Kind::none && a.var == b.var &&
         (a.kind == Access::Kind::update || b.kind == Access::Kind::update);
}

}  // namespace

std::string_view por_name(Por p) {
  switch (p) {
    case Por::none: return "none";
    case Por::stubborn: return "stubborn";
    case Por::rf: return "rf";
  }
  return "?";
}

std::optional<Por> parse_por(std::string_view name) {
  for (auto p : kAllPor)
    if (por_name(p) == name) return p;
  return std::nullopt;
}

Reduction::Reduction(const Semantics& sem, Por por)
    : sem_(sem), por_(por), accessors_(sem.program().variables().size()) {
  for (std::size_t i = 0; i < sem.program().nodes().size(); ++i)
    if (const auto a = sem.access(NodeId(i)); a.kind != Access::Kind::none) accessors_[a.var.index()].emplace_back(i);
}

bool Reduction::independent(NodeId a, NodeId b) const { return !conflict(sem_.access(a), sem_.access(b)); }

void Reduction::settle(State& s, Schedule& steps) const {
  if (por_ == Por::none) return;
  for (bool again = true; again;) {
    again = false;
    for (auto n : sem_.enabled_nodes(s))
      if (sem_.access(n).kind == Access::Kind::none && sem_.deterministic(n)) {
        s = std::move(sem_.fire(s, n)[0]);
        steps.push_back({n, 0});
        again = true;
      }
  }
}

std::vector<NodeId> Reduction::stubborn_set(const State& s, const std::vector<bool>& fired, NodeId t) const {
  // Closure: an enabled member brings every pending node it conflicts with; a
  // disabled member brings the source of one EMPTY incoming edge (a firing
  // that must happen before it can be enabled). Returns the enabled members.
  const auto& p = sem_.program();
  std::vector<bool> member(p.nodes().size(), false);
  std::vector<NodeId> work{t}, enabled;
  member[t.index()] = true;
  auto add = [&](NodeId v) {
    if (!member[v.index()]) member[v.index()] = true, work.push_back(v);
  };
  while (!work.empty()) {
    const auto u = work.back();
    work.pop_back();
    if (sem_.enabled(s, u)) {
      enabled.push_back(u);
      const auto a = sem_.access(u);
      if (a.kind == Access::Kind::none) continue;
      for (auto v : accessors_[a.var.index()])
        if (!fired[v.index()] && conflict(a, sem_.access(v))) add(v);
      continue;
    }
    for (auto d : p.incoming(u)) {
      if (!is_empty(s.in_transit[d.index()])) continue;
      // An EMPTY input edge is never filled: u can never fire, and needs nothing.
      if (const auto& e = p.edge(d); !e.is_input()) add(e.src);
      break;
    }
  }
  std::sort(enabled.begin(), enabled.end());
  return enabled;
}

std::vector<NodeId> Reduction::write_phase(const State& s, const std::vector<bool>& fired, VarId x) const {
  std::vector<NodeId> writes, others;
  for (auto a : accessors_[x.index()]) {
    if (fired[a.index()]) continue;
    (sem_.enabled(s, a) && sem_.overwrites(s, a) ? writes : others).push_back(a);
  }
  if (writes.size() < 2) return {};
  for (auto o : others)
    for (auto w : writes)
      if (!sem_.precedes(w, o)) return {};
  return writes;
}

namespace {

// One move per node that is not asleep.
std::vector<Move> awake(const std::vector<NodeId>& nodes, const SleepSet& sleep) {
  std::vector<Move> out;
  for (auto n : nodes)
    if (!std::binary_search(sleep.begin(), sleep.end(), n)) out.push_back({n});
  return out;
}

}  // namespace

std::vector<Move> Reduction::moves(const State& s, const std::vector<NodeId>& enabled, const SleepSet& sleep) const {
  if (por_ == Por::none) return awake(enabled, sleep);
  // A pure node left after settling is a relation (Choice): {n} is stubborn.
  for (auto n : enabled)
    if (sem_.access(n).kind == Access::Kind::none) return {{n}};
  const auto fired = sem_.fired(s);
  if (por_ == Por::rf)
    for (std::size_t x = 0; x < accessors_.size(); ++x)
      if (const auto writes = write_phase(s, fired, VarId(x)); !writes.empty()) {
        // Sleep sets are not applied to a write phase: it is explored whole.
        std::vector<Move> out;
        for (auto w : writes) out.push_back({w, true});
        return out;
      }
  std::vector<NodeId> best;
  for (auto t : enabled) {
    auto candidate = stubborn_set(s, fired, t);
    if (best.empty() || candidate.size() < best.size()) best = std::move(candidate);
    if (best.size() == 1) break;
  }
  return awake(best, sleep);
}

std::vector<Landing> Reduction::fire(const State& s, const Move& m) const {
  std::vector<Landing> out;
  if (m.write_phase) {
    auto writes = write_phase(s, sem_.fired(s), sem_.access(m.node).var);
    std::stable_partition(writes.begin(), writes.end(), [&](NodeId w) { return w != m.node; });
    Landing l{s, {}};
    for (auto w : writes) {
      l.state = std::move(sem_.fire(l.state, w)[0]);  // overwrites are deterministic
      l.steps.push_back({w, 0});
    }
    settle(l.state, l.steps);
    out.push_back(std::move(l));
    return out;
  }
  auto successors = sem_.fire(s, m.node);
  for (std::uint32_t c = 0; c < successors.size(); ++c) {
    Landing l{std::move(successors[c]), {{m.node, c}}};
    settle(l.state, l.steps);
    out.push_back(std::move(l));
  }
  return out;
}

}  // namespace tfsem::explorer
