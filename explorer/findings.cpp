#include "explorer/findings.hpp"

#include "semantics/dependence.hpp"
#include "semantics/term_text.hpp"

#include <algorithm>

namespace tfsem::explorer {

namespace {

// What tells outcomes apart: the outcome's text written as one group, the
// subterms its values share named once and their definitions after it
// (TermNames), so that it costs the values' DAG once rather than once a value
// (a training step's hundreds of variables share its whole graph). Like the
// text, it depends on the values alone, in every process.
std::string outcome_key(const Semantics& sem, const Outcome& o) {
  TermNames names;
  auto key = names.group([&] { return outcome_text(sem, o); });
  for (const auto& d : names.definitions()) key += "; " + d.name + " = " + d.text;
  return key;
}

}  // namespace

void Findings::terminal(const State& s, Seen at, PathCount paths, Counters& counters) {
  ++counters.terminal_states;
  counters.behaviours = saturating_add(counters.behaviours, paths);
  outcome(outcome_key(sem_, outcome_of(sem_, s)), at, paths);  // states come level by level: the first stays
}

void Findings::outcome(std::string text, Seen first, PathCount paths) {
  const auto [it, fresh] = by_text_.try_emplace(text, outcomes_.size());
  if (fresh) outcomes_.push_back({std::move(text), first, 0});
  auto& o = outcomes_[it->second];
  if (first.level < o.first.level) o.first = first;
  o.paths = saturating_add(o.paths, paths);
}

void Findings::race(const RaceSeen& seen, Seen at) {
  const auto [a, b, harmful] = seen;
  if (commuting_race(sem_, a, b)) {
    // S-COMMUTE: one benign race by pair of nodes, the first by level, then in canonical order.
    const Canonical before{&sem_.contexts()};
    const auto canonical = [&](std::pair<Transition, Transition> r) {
      return before(r.second, r.first) ? std::pair{r.second, r.first} : r;
    };
    const auto [it, fresh] = commuting_.try_emplace(std::minmax(a.node, b.node), std::pair{a, b});
    if (!fresh) {
      const auto old = races_.at(it->second).at.level;
      if (old < at.level || (old == at.level && !before(canonical({a, b}), canonical(it->second)))) return;
      races_.erase(it->second);
      it->second = {a, b};
    }
    races_.emplace(std::pair{a, b}, Raced{false, at});
    return;
  }
  const auto [it, fresh] = races_.try_emplace({a, b}, Raced{harmful, at});
  auto& race = it->second;
  if (!fresh && (race.harmful || !harmful)) return;
  race = {harmful, at};
  if (a.context == kRootContext && b.context == kRootContext)
    flags_.set(sem_.access(a.node).var, a.node, b.node, harmful ? RaceFlags::harmful : RaceFlags::benign);
}

void Findings::save(CheckpointOut& out) const {
  out.pod<std::uint64_t>(outcomes_.size());
  for (const auto& o : outcomes_) {
    out.text(o.text);
    out.pod(o.first);
    out.pod(o.paths);
  }
  out.pod<std::uint64_t>(races_.size());
  for (const auto& [key, race] : races_) out.pod(key), out.pod(race);
  out.pod<std::uint64_t>(commuting_.size());
  for (const auto& [nodes, key] : commuting_) out.pod(nodes), out.pod(key);
}

void Findings::restore(CheckpointIn& in) {
  using Key = std::pair<Transition, Transition>;
  outcomes_.resize(in.size(UINT32_MAX, 1));
  for (std::size_t k = 0; k < outcomes_.size(); ++k) {
    auto& o = outcomes_[k];
    o.text = in.text();
    o.first = in.pod<Seen>();
    o.paths = in.pod<PathCount>();
    by_text_.emplace(o.text, k);
  }
  const auto nodes = sem_.program().nodes().size();
  const auto valid = [&](const Key& k) {
    return k.first.node.index() < nodes && k.second.node.index() < nodes && k.first.context.index() < sem_.contexts().size() &&
           k.second.context.index() < sem_.contexts().size();
  };
  for (auto n = in.size(UINT32_MAX, 1); n > 0; --n) {
    const auto key = in.pod<Key>();
    const auto race = in.pod<Raced>();
    if (!valid(key)) throw CheckpointError(in.path() + ": corrupted: a race");
    races_.emplace(key, race);
    const auto [a, b] = key;
    if (a.context == kRootContext && b.context == kRootContext)
      flags_.set(sem_.access(a.node).var, a.node, b.node, race.harmful ? RaceFlags::harmful : RaceFlags::benign);
  }
  for (auto n = in.size(UINT32_MAX, 1); n > 0; --n) {
    const auto nodes_of = in.pod<std::pair<NodeId, NodeId>>();
    const auto key = in.pod<Key>();
    if (!races_.contains(key)) throw CheckpointError(in.path() + ": corrupted: a race of commuting updates");
    commuting_.emplace(nodes_of, key);
  }
}

bool commuting_race(const Semantics& sem, Transition a, Transition b) {
  const auto x = sem.access(a.node);
  return !(a.context == kRootContext && b.context == kRootContext) && x.kind == Access::Kind::update &&
         sem.access(b.node).kind == Access::Kind::update && sem.dependence().commuting(x.var);
}

Race race_of(const Semantics& sem, Transition a, Transition b, bool harmful, Schedule prefix, PathCondition path) {
  Race race{a, b, sem.access(a.node).var, harmful, prefix, std::move(prefix), std::move(path)};
  const Step sa{a.node, a.context, 0}, sb{b.node, b.context, 0};
  race.first_then_second.insert(race.first_then_second.end(), {sa, sb});
  race.second_then_first.insert(race.second_then_first.end(), {sb, sa});
  return race;
}

}  // namespace tfsem::explorer
