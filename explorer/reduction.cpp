#include "explorer/reduction.hpp"

#include <algorithm>

namespace tfsem::explorer {

namespace {

bool conflict(const Access& a, const Access& b) {
  return a.kind != Access::Kind::none && b.kind != Access::Kind::none && a.var == b.var &&
         (a.kind == Access::Kind::update || b.kind == Access::Kind::update);
}

bool asleep(const SleepSet& sleep, NodeId n) { return std::binary_search(sleep.begin(), sleep.end(), n); }

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

Reduction::Reduction(Firings& firings, Por por)
    : f_(firings), sem_(firings.semantics()), por_(por), accessors_(sem_.program().variables().size()) {
  const auto& p = sem_.program();
  for (std::size_t i = 0; i < p.nodes().size(); ++i) {
    const NodeId n(i);
    const auto a = sem_.access(n);
    if (a.kind != Access::Kind::none) accessors_[a.var.index()].push_back(n);
    settles_.push_back(a.kind == Access::Kind::none && sem_.deterministic(n));
    auto& next = successors_.emplace_back();
    for (const auto* edges : {&p.node(n).out, &p.node(n).control_out})
      for (auto e : *edges)
        if (!p.edge(e).is_output()) next.push_back(p.edge(e).dst);
  }
  member_.assign(p.nodes().size(), false);
}

bool Reduction::independent(NodeId a, NodeId b) const { return !conflict(sem_.access(a), sem_.access(b)); }

void Reduction::settle(Code* row, Schedule& steps, std::vector<NodeId> seeds) {
  if (por_ == Por::none) return;
  // In passes, as a fixed order of firings: those enabled when a pass begins,
  // by node id; then those that they enabled.
  std::vector<NodeId> pass;
  while (!seeds.empty()) {
    std::sort(seeds.begin(), seeds.end());
    seeds.erase(std::unique(seeds.begin(), seeds.end()), seeds.end());
    pass.clear();
    for (auto n : seeds)
      if (settles_[n.index()] && f_.enabled(row, n)) pass.push_back(n);
    seeds.clear();
    for (auto n : pass) {
      f_.fire(row, n, 0, row);
      steps.push_back({n, 0});
      seeds.insert(seeds.end(), successors_[n.index()].begin(), successors_[n.index()].end());
    }
  }
}

void Reduction::stubborn_set(const Code* row, NodeId t, std::vector<NodeId>& out) {
  // Closure: an enabled member brings every pending node it conflicts with; a
  // disabled member brings the source of one EMPTY incoming edge (a firing
  // that must happen before it can be enabled). Returns the enabled members.
  const auto& p = sem_.program();
  out.clear();
  work_.assign(1, t);
  candidate_.assign(1, t);  // every member, to clear member_ afterwards
  member_[t.index()] = true;
  auto add = [&](NodeId v) {
    if (!member_[v.index()]) member_[v.index()] = true, work_.push_back(v), candidate_.push_back(v);
  };
  while (!work_.empty()) {
    const auto u = work_.back();
    work_.pop_back();
    if (f_.enabled(row, u)) {
      out.push_back(u);
      const auto a = sem_.access(u);
      if (a.kind == Access::Kind::none) continue;
      for (auto v : accessors_[a.var.index()])
        if (!fired_[v.index()] && conflict(a, sem_.access(v))) add(v);
      continue;
    }
    for (const auto* edges : {&p.node(u).in, &p.node(u).control_in}) {
      const auto d = std::find_if(edges->begin(), edges->end(), [&](EdgeId e) { return f_.empty(row, e); });
      if (d == edges->end()) continue;
      // An EMPTY input edge is never filled: u can never fire, and needs nothing.
      if (const auto& e = p.edge(*d); !e.is_input()) add(e.src);
      break;
    }
  }
  for (auto v : candidate_) member_[v.index()] = false;
  std::sort(out.begin(), out.end());
}

void Reduction::write_phase(const Code* row, VarId x, std::vector<NodeId>& out) {
  out.clear();
  others_.clear();
  for (auto a : accessors_[x.index()]) {
    if (fired_[a.index()]) continue;
    (f_.enabled(row, a) && f_.overwrites(row, a) ? out : others_).push_back(a);
  }
  const bool phase = out.size() >= 2 && std::all_of(others_.begin(), others_.end(), [&](NodeId o) {
    return std::all_of(out.begin(), out.end(), [&](NodeId w) { return sem_.precedes(w, o); });
  });
  if (!phase) out.clear();
}

void Reduction::moves(const Code* row, const std::vector<NodeId>& enabled, const SleepSet& sleep,
                      std::vector<Move>& out) {
  out.clear();
  auto awake = [&](const std::vector<NodeId>& nodes) {
    for (auto n : nodes)
      if (!asleep(sleep, n)) out.push_back({n});
  };
  if (por_ == Por::none) return awake(enabled);
  // A pure node left after settling is a relation (Choice): {n} is stubborn.
  for (auto n : enabled)
    if (sem_.access(n).kind == Access::Kind::none) return out.push_back({n});
  f_.fired(row, fired_);
  if (por_ == Por::rf)
    for (std::size_t x = 0; x < accessors_.size(); ++x) {
      write_phase(row, VarId(x), writes_);
      if (writes_.empty()) continue;
      // Sleep sets are not applied to a write phase: it is explored whole.
      for (auto w : writes_) out.push_back({w, true});
      return;
    }
  std::vector<NodeId> best;
  for (auto t : enabled) {
    stubborn_set(row, t, writes_);
    if (best.empty() || writes_.size() < best.size()) best.swap(writes_);
    if (best.size() == 1) break;
  }
  awake(best);
}

void Reduction::fire(const Code* row, const Move& m, Landings& out) {
  const auto width = f_.width();
  out.rows_.clear();
  out.steps_.clear();
  out.ends_.clear();
  if (m.write_phase) {
    // The phase moves() found: every enabled overwrite of the variable (an
    // enabled node has not fired), the others being pending in its wake.
    writes_.clear();
    for (auto a : accessors_[sem_.access(m.node).var.index()])
      if (f_.enabled(row, a) && f_.overwrites(row, a)) writes_.push_back(a);
    std::stable_partition(writes_.begin(), writes_.end(), [&](NodeId w) { return w != m.node; });
    out.rows_.assign(row, row + width);
    std::vector<NodeId> seeds;
    for (auto w : writes_) {
      f_.fire(out.rows_.data(), w, 0, out.rows_.data());  // overwrites are deterministic
      out.steps_.push_back({w, 0});
      seeds.insert(seeds.end(), successors_[w.index()].begin(), successors_[w.index()].end());
    }
    settle(out.rows_.data(), out.steps_, std::move(seeds));
    out.ends_.push_back(static_cast<std::uint32_t>(out.steps_.size()));
    return;
  }
  const auto results = f_.results(row, m.node);
  out.rows_.resize(results * width);
  for (std::uint32_t c = 0; c < results; ++c) {
    auto* r = out.rows_.data() + c * width;
    f_.fire(row, m.node, c, r);
    out.steps_.push_back({m.node, c});
    settle(r, out.steps_, successors_[m.node.index()]);
    out.ends_.push_back(static_cast<std::uint32_t>(out.steps_.size()));
  }
}

}  // namespace tfsem::explorer
