#include "explorer/explore.hpp"

#include "explorer/state_table.hpp"

#include <algorithm>
#include <map>
#include <unordered_map>

namespace tfsem::explorer {

namespace {

using Clock = std::chrono::steady_clock;

PathCount saturating_add(PathCount a, PathCount b) { return a > UINT64_MAX - b ? UINT64_MAX : a + b; }

bool conflict(const Access& a, const Access& b) {
  return a.kind != Access::Kind::none && b.kind != Access::Kind::none && a.var == b.var &&
         (a.kind == Access::Kind::update || b.kind == Access::Kind::update);
}

// The states reachable by firing a then b (every result of each).
std::vector<State> fire_both(const Semantics& sem, const State& s, NodeId a, NodeId b) {
  std::vector<State> out;
  for (const auto& mid : sem.fire(s, a))
    if (sem.enabled(mid, b))
      for (auto& end : sem.fire(mid, b)) out.push_back(std::move(end));
  return out;
}

// Whether the two orders of a and b lead to different sets of states.
bool order_matters(const Semantics& sem, const State& s, NodeId a, NodeId b) {
  const auto ab = fire_both(sem, s, a, b), ba = fire_both(sem, s, b, a);
  return ab.size() != ba.size() || !std::is_permutation(ab.begin(), ab.end(), ba.begin());
}

class Search {
 public:
  Search(const Semantics& sem, const ExploreOptions& opts) : sem_(sem), opts_(opts), table_(sem.program()) {}

  Result run() {
    const auto start = Clock::now();
    auto last_report = start;
    std::vector<StateIndex> level{add(sem_.initial(), kNoParent, {}).first};
    paths_[0] = 1;
    while (!level.empty() && result_.complete) {
      std::vector<StateIndex> next;
      for (auto s : level) {
        expand(s, next);
        if (!within_limits(start)) break;
        if (opts_.progress && Clock::now() - last_report > std::chrono::milliseconds(250)) {
          last_report = Clock::now();
          opts_.progress({table_.size(), memory(), elapsed(start)});
        }
      }
      level = std::move(next);
    }
    result_.counters.states_stored = table_.size();
    result_.seconds = elapsed(start);
    result_.memory_bytes = memory();
    for (auto& o : outcome_order_) result_.outcomes.push_back(std::move(outcomes_[o]));
    for (auto& [key, race] : races_) result_.races.push_back(std::move(race));
    return result_;
  }

 private:
  static constexpr StateIndex kNoParent = UINT32_MAX;
  const Semantics& sem_;
  const ExploreOptions& opts_;
  StateTable table_;
  std::vector<std::pair<StateIndex, Step>> parent_;  // how each state was first reached
  std::vector<PathCount> paths_;                     // interleavings reaching each state
  std::unordered_map<std::string, Outcome> outcomes_;
  std::vector<std::string> outcome_order_;
  std::map<std::pair<NodeId, NodeId>, Race> races_;
  Result result_;

  static double elapsed(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }
  std::uint64_t memory() const { return table_.bytes() + parent_.capacity() * 16 + paths_.capacity() * 8; }

  bool within_limits(Clock::time_point start) {
    const auto& l = opts_.limits;
    if (table_.size() > l.max_states) result_.stopped_by = "max-states " + std::to_string(l.max_states);
    else if (memory() > l.max_memory_bytes) result_.stopped_by = "max-memory " + std::to_string(l.max_memory_bytes >> 20) + " MiB";
    else if (l.timeout && elapsed(start) > l.timeout->count()) result_.stopped_by = "timeout";
    else return true;
    result_.complete = false;
    return false;
  }

  std::pair<StateIndex, bool> add(const State& s, StateIndex from, Step step) {
    auto [i, fresh] = table_.insert(s);
    if (fresh) {
      parent_.emplace_back(from, step);
      paths_.push_back(0);
    }
    return {i, fresh};
  }

  Schedule path_to(StateIndex s) const {
    Schedule out;
    for (; parent_[s].first != kNoParent; s = parent_[s].first) out.push_back(parent_[s].second);
    std::reverse(out.begin(), out.end());
    return out;
  }

  void expand(StateIndex si, std::vector<StateIndex>& next) {
    const State s = table_.unpack(si);
    const auto enabled = sem_.enabled_nodes(s);
    if (enabled.empty()) return record_terminal(si, s);
    record_races(si, s, enabled);
    for (auto n : enabled) {
      const auto successors = sem_.fire(s, n);
      for (std::uint32_t c = 0; c < successors.size(); ++c) {
        ++result_.counters.transitions;
        auto [t, fresh] = add(successors[c], si, Step{n, c});
        if (fresh) next.push_back(t);
        else ++result_.counters.states_matched;
        // Every predecessor of t lies on the previous level (each step fires one
        // more node), so paths_[si] is final here.
        paths_[t] = saturating_add(paths_[t], paths_[si]);
      }
    }
  }

  void record_terminal(StateIndex si, const State& s) {
    ++result_.counters.terminal_states;
    Outcome o{outputs(sem_.program(), s), s.var_value, sem_.stuck(s), 0, {}};
    const auto key = outcome_text(sem_.program(), o);
    auto [it, fresh] = outcomes_.try_emplace(key, std::move(o));
    if (fresh) {
      it->second.witness = path_to(si);
      outcome_order_.push_back(key);
    }
    it->second.interleavings = saturating_add(it->second.interleavings, paths_[si]);
  }

  void record_races(StateIndex si, const State& s, const std::vector<NodeId>& enabled) {
    for (std::size_t i = 0; i < enabled.size(); ++i)
      for (std::size_t j = i + 1; j < enabled.size(); ++j) {
        const auto a = enabled[i], b = enabled[j];
        const auto va = sem_.access(a), vb = sem_.access(b);
        if (!conflict(va, vb)) continue;
        auto [it, fresh] = races_.try_emplace({a, b});
        auto& race = it->second;
        if (!fresh && race.harmful) continue;  // its witnesses are final
        const bool harmful = order_matters(sem_, s, a, b);
        if (fresh || harmful) {
          const auto prefix = path_to(si);
          race = Race{a, b, va.var, harmful, prefix, prefix};
          race.first_then_second.insert(race.first_then_second.end(), {Step{a, 0}, Step{b, 0}});
          race.second_then_first.insert(race.second_then_first.end(), {Step{b, 0}, Step{a, 0}});
        }
      }
  }
};

}  // namespace

Result explore(const Semantics& sem, const ExploreOptions& options) { return Search(sem, options).run(); }

std::string outcome_text(const Program& p, const Outcome& o) {
  std::string out;
  for (const auto& [fetch, c] : o.outputs) out += (out.empty() ? "" : "; ") + fetch + "=" + content_to_string(p, c);
  for (std::size_t x = 0; x < o.var_value.size(); ++x)
    out += (out.empty() ? "" : "; ") + p.variable(VarId(x)).name + "=" + o.var_value[x].to_string();
  if (!o.stuck.empty()) {
    out += "; stuck=";
    for (std::size_t i = 0; i < o.stuck.size(); ++i) out += (i ? "," : "") + p.node(o.stuck[i].node).name;
  }
  return out;
}

}  // namespace tfsem::explorer
