#include "explorer/expansion.hpp"

namespace tfsem::explorer {

RaceFlags::RaceFlags(const Semantics& sem)
    : local_(sem.program().nodes().size()), flags_(sem.program().variables().size()) {
  std::vector<std::uint32_t> count(flags_.size(), 0);
  for (std::size_t i = 0; i < local_.size(); ++i)
    if (const auto a = sem.access(NodeId(i)); a.kind != Access::Kind::none) local_[i] = count[a.var.index()]++;
  for (std::size_t x = 0; x < flags_.size(); ++x) size_.push_back(count[x]);
}

void RaceFlags::set(VarId x, NodeId a, NodeId b, std::uint8_t v) {
  auto& f = flags_[x.index()];
  if (f.empty()) f.assign(pairs(x), unseen);
  f[index(x, a, b)] = v;
}

std::size_t RaceFlags::bytes() const {
  std::size_t n = 0;
  for (const auto& f : flags_) n += f.size();
  return n;
}

Expander::Expander(const Semantics& sem, Codec& codec, Por por, const Limits& limits)
    : firings(sem, codec, limits.bounds), reduction(firings, por, Cutoff(limits.stop)), sem_(sem) {}

FrameId Expander::initial(Row& row, Schedule& steps) {
  firings.codec().pack(sem_.initial(), row);
  std::vector<NodeId> every;
  for (std::size_t i = 0; i < sem_.program().nodes().size(); ++i) every.emplace_back(i);
  return reduction.settle(row, steps, every);
}

void Expander::inherited(std::span<const Step> steps) {
  next_sleep_.clear();
  for (auto z : sleep_)
    if (std::all_of(steps.begin(), steps.end(), [&](const Step& st) { return reduction.independent(z, st.transition()); }))
      next_sleep_.push_back(z);
}

void Expander::races(std::span<const Code> row, const RaceFlags& flags, std::vector<RaceSeen>& out) {
  // A shape whose races are all known harmful has none left to find.
  bool* settled = reduction.races_settled(row);
  if (settled != nullptr && *settled) return;
  // The enabled transitions that access a variable, the commuting updates
  // (S-COMMUTE) last; a dead one touches nothing (C-DEAD), which is looked at
  // only for a pair not known harmful.
  const auto& dep = sem_.dependence();
  const auto commutes = [&](Transition t) {
    const auto a = sem_.access(t.node);
    return a.kind == Access::Kind::update && dep.commuting(a.var);
  };
  accessing_.clear();
  for (auto t : frontier.enabled)
    if (sem_.access(t.node).kind != Access::Kind::none && !commutes(t)) accessing_.push_back(t);
  const auto others = accessing_.size();
  for (auto t : frontier.enabled)
    if (commutes(t)) accessing_.push_back(t);
  enum : std::uint8_t { unknown, live, dead };
  liveness_.assign(accessing_.size(), unknown);
  const auto view = firings.view(row);
  const auto is_live = [&](std::size_t i) {
    if (liveness_[i] == unknown) liveness_[i] = firings.dead(view, accessing_[i]) ? dead : live;
    return liveness_[i] == live;
  };
  // The accesses by variable, each variable's in order: only two accesses to
  // one variable conflict, so a state enabling many accesses to many
  // variables costs the pairs on each variable, not every pair.
  by_var_.clear();
  for (std::size_t i = 0; i < accessing_.size(); ++i)
    by_var_.emplace_back(sem_.access(accessing_[i].node).var, static_cast<std::uint32_t>(i));
  std::sort(by_var_.begin(), by_var_.end());
  at_.resize(accessing_.size());
  for (std::size_t k = 0; k < by_var_.size(); ++k) at_[by_var_[k].second] = static_cast<std::uint32_t>(k);
  bool harmful_all = others == accessing_.size();  // no commuting update, and every pair below known harmful
  for (std::size_t i = 0; i < others; ++i) {
    const auto x = by_var_[at_[i]].first;
    for (auto k = at_[i] + 1; k < by_var_.size() && by_var_[k].first == x; ++k) {
      const auto j = by_var_[k].second;
      auto a = accessing_[i], b = accessing_[j];
      if (!accesses_conflict(a, b)) continue;
      if (b < a) std::swap(a, b);
      const bool root = a.context == kRootContext && b.context == kRootContext;
      const auto flag = root ? flags.get(sem_.access(a.node).var, a.node, b.node) : RaceFlags::unseen;
      if (flag == RaceFlags::harmful) continue;  // its witnesses are final
      harmful_all = false;
      if (!is_live(i) || !is_live(j)) continue;
      const bool harmful = order_matters(row, a, b);
      if (flag == RaceFlags::unseen || harmful) out.push_back({a, b, harmful});
    }
  }
  commuting_races(others, is_live, flags, out);
  if (settled != nullptr && harmful_all) *settled = true;
}

// Two commuting updates race benignly: both orders reach one state
// (S-COMMUTE). Of the live ones, by pair of nodes, the first two race; the findings keep one race by pair of nodes (findings.cpp), so that
// n updates enabled together cost n, not n^2 races.
template <class Live>
void Expander::commuting_races(std::size_t from, Live&& is_live, const RaceFlags& flags, std::vector<RaceSeen>& out) {
  // By node: its first two live transitions in a canonical order of
  // contexts, so that every process reports the same ones: the shallower
  // first, then as Contexts::before orders them (which walks up to where
  // they part, so that n updates on one call stack would cost n^2 here).
  const auto& ctx = sem_.contexts();
  const auto before = [&](Transition a, Transition b) {
    const auto da = ctx[a.context].depth, db = ctx[b.context].depth;
    return da != db ? da < db : ctx.before(a.context, b.context);
  };
  firsts_.clear();
  for (auto i = from; i < accessing_.size(); ++i) {
    const auto t = accessing_[i];
    if (!is_live(i)) continue;
    auto it = std::find_if(firsts_.begin(), firsts_.end(), [&](const auto& f) { return f[0].node == t.node; });
    if (it == firsts_.end()) {
      firsts_.push_back({t});
      continue;
    }
    auto& f = *it;
    f.insert(std::upper_bound(f.begin(), f.end(), t, before), t);
    if (f.size() > 2) f.pop_back();
  }
  for (std::size_t p = 0; p < firsts_.size(); ++p)
    for (auto q = p; q < firsts_.size(); ++q) {
      const auto x = sem_.access(firsts_[p][0].node).var;
      if (sem_.access(firsts_[q][0].node).var != x) continue;
      auto a = firsts_[p][0], b = q == p ? (firsts_[p].size() == 2 ? firsts_[p][1] : a) : firsts_[q][0];
      if (a == b) continue;
      if (b < a) std::swap(a, b);
      const bool root = a.context == kRootContext && b.context == kRootContext;
      if (!root || flags.get(x, a.node, b.node) == RaceFlags::unseen) out.push_back({a, b, false});
    }
}

bool Expander::accesses_conflict(Transition a, Transition b) const {
  const auto x = sem_.access(a.node), y = sem_.access(b.node);
  return x.kind != Access::Kind::none && y.kind != Access::Kind::none && x.var == y.var &&
         (x.kind == Access::Kind::update || y.kind == Access::Kind::update);
}

// Two accesses to one variable in enabled transitions never disable each
// other, so b is enabled after a (its inputs are its own). The two orders
// are compared as their rules leave the state, before any context leaves it
// (C-FINISHED): a value that no transition can take any more still tells
// them apart, as it did while it stayed.
void Expander::fire_both(std::span<const Code> row, Transition a, Transition b, std::vector<Row>& out) {
  out.clear();
  const auto first = firings.find(row, a);
  for (std::size_t ra = 0; ra < first.results; ++ra) {
    firings.fire(row, first, ra, mid_, false);
    const auto second = firings.find(mid_, b);
    for (std::size_t rb = 0; rb < second.results; ++rb) {
      firings.fire(mid_, second, rb, out.emplace_back(), false);
      while (!out.back().empty() && out.back().back() == kEmptyCode) out.back().pop_back();  // rows compare padded
    }
  }
}

bool Expander::order_matters(std::span<const Code> row, Transition a, Transition b) {
  fire_both(row, a, b, ab_);
  fire_both(row, b, a, ba_);
  return ab_.size() != ba_.size() || !std::is_permutation(ab_.begin(), ab_.end(), ba_.begin());
}

}  // namespace tfsem::explorer
