#include "explorer/explore.hpp"

#include "explorer/state_table.hpp"

#include <algorithm>
#include <map>
#include <unordered_map>

namespace tfsem::explorer {

namespace {

using Clock = std::chrono::steady_clock;

PathCount saturating_add(PathCount a, PathCount b) { return a > UINT64_MAX - b ? UINT64_MAX : a + b; }

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

SleepSet intersect(const SleepSet& a, const SleepSet& b) {
  SleepSet out;
  std::set_intersection(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(out));
  return out;
}

// States are expanded in order of how many firings reach them (every path to a
// state fires the same nodes), so every arrival at a state, with its path
// count and sleep set, is known before the state is expanded.
class Search {
 public:
  Search(const Semantics& sem, const ExploreOptions& opts)
      : sem_(sem), opts_(opts), reduction_(sem, opts.por), table_(sem.program()) {}

  Result run() {
    const auto start = Clock::now();
    auto last_report = start;
    result_.por = opts_.por;
    State init = sem_.initial();
    reduction_.settle(init, initial_steps_);
    add(init, {kNoParent, {}, 0}, initial_steps_.size(), {}, 1);
    for (std::size_t depth = 0; depth < buckets_.size() && result_.complete; ++depth) {
      // Expanding may add to later buckets; take this one out first.
      const auto bucket = std::move(buckets_[depth]);
      for (auto s : bucket) {
        expand(s, depth);
        if (!within_limits(start)) break;
        if (opts_.progress && Clock::now() - last_report > std::chrono::milliseconds(250)) {
          last_report = Clock::now();
          opts_.progress({table_.size(), memory(), elapsed(start)});
        }
      }
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
  // How a state was first reached: a move from its parent, and which result.
  struct Arrival {
    StateIndex parent;
    Move move;
    std::uint32_t result;
  };
  const Semantics& sem_;
  const ExploreOptions& opts_;
  Reduction reduction_;
  StateTable table_;
  Schedule initial_steps_;  // the settling firings before the first stored state
  std::vector<Arrival> arrival_;
  std::vector<PathCount> paths_;
  std::vector<std::vector<StateIndex>> buckets_;     // unexpanded states, by firings so far
  std::unordered_map<StateIndex, SleepSet> sleep_;   // sleep sets of unexpanded states
  std::unordered_map<std::string, Outcome> outcomes_;
  std::vector<std::string> outcome_order_;
  std::map<std::pair<NodeId, NodeId>, Race> races_;
  Result result_;

  static double elapsed(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }
  std::uint64_t memory() const {
    return table_.bytes() + arrival_.capacity() * sizeof(Arrival) + paths_.capacity() * sizeof(PathCount);
  }

  bool within_limits(Clock::time_point start) {
    const auto& l = opts_.limits;
    if (table_.size() > l.max_states) result_.stopped_by = "max-states " + std::to_string(l.max_states);
    else if (memory() > l.max_memory_bytes) result_.stopped_by = "max-memory " + std::to_string(l.max_memory_bytes >> 20) + " MiB";
    else if (l.timeout && elapsed(start) > l.timeout->count()) result_.stopped_by = "timeout";
    else return true;
    result_.complete = false;
    return false;
  }

  // Records an arrival at s, `depth` firings from the initial state.
  StateIndex add(const State& s, Arrival how, std::size_t depth, SleepSet sleep, PathCount paths) {
    auto [i, fresh] = table_.insert(s);
    if (fresh) {
      arrival_.push_back(how);
      paths_.push_back(paths);
      if (buckets_.size() <= depth) buckets_.resize(depth + 1);
      buckets_[depth].push_back(i);
      if (!sleep.empty()) sleep_.emplace(i, std::move(sleep));
      return i;
    }
    ++result_.counters.states_matched;
    paths_[i] = saturating_add(paths_[i], paths);
    // A state reached again before its expansion sleeps only on what every path agrees on.
    if (auto it = sleep_.find(i); it != sleep_.end()) {
      it->second = intersect(it->second, sleep);
      if (it->second.empty()) sleep_.erase(it);
    }
    return i;
  }

  // The schedule reaching s: its moves replayed from the initial state.
  Schedule path_to(StateIndex s) const {
    std::vector<const Arrival*> chain;
    for (; arrival_[s].parent != kNoParent; s = arrival_[s].parent) chain.push_back(&arrival_[s]);
    Schedule out = initial_steps_;
    State at = sem_.initial();
    replay(sem_, at, initial_steps_);  // the settling firings, always enabled
    for (auto it = chain.rbegin(); it != chain.rend(); ++it) {
      auto landing = std::move(reduction_.fire(at, (*it)->move)[(*it)->result]);
      out.insert(out.end(), landing.steps.begin(), landing.steps.end());
      at = std::move(landing.state);
    }
    return out;
  }

  void expand(StateIndex si, std::size_t depth) {
    const State s = table_.unpack(si);
    const auto enabled = sem_.enabled_nodes(s);
    if (opts_.observer.state) opts_.observer.state(si, s, enabled.empty());
    if (enabled.empty()) return record_terminal(si, s);
    record_races(si, s, enabled);
    SleepSet sleep;
    if (auto it = sleep_.find(si); it != sleep_.end()) {
      sleep = std::move(it->second);
      sleep_.erase(it);
    }
    const auto moves = reduction_.moves(s, enabled, sleep);
    if (moves.size() < enabled.size()) result_.counters.transitions_pruned += enabled.size() - moves.size();
    for (const auto& m : moves) {
      auto landings = reduction_.fire(s, m);
      for (std::uint32_t r = 0; r < landings.size(); ++r) {
        ++result_.counters.transitions;
        // Sleep-set rule: a sibling explored earlier, or a sleeper, still sleeps
        // after this move when it is independent of every firing in it.
        SleepSet next;
        for (auto z : sleep)
          if (std::all_of(landings[r].steps.begin(), landings[r].steps.end(),
                          [&](const Step& st) { return reduction_.independent(z, st.node); }))
            next.push_back(z);
        std::sort(next.begin(), next.end());
        const auto to = add(landings[r].state, {si, m, r}, depth + landings[r].steps.size(), std::move(next), paths_[si]);
        if (opts_.observer.transition) opts_.observer.transition(si, to, landings[r].steps);
      }
      if (!m.write_phase && opts_.por != Por::none) sleep.insert(std::upper_bound(sleep.begin(), sleep.end(), m.node), m.node);
    }
  }

  void record_terminal(StateIndex si, const State& s) {
    ++result_.counters.terminal_states;
    result_.counters.behaviours = saturating_add(result_.counters.behaviours, paths_[si]);
    Outcome o{outputs(sem_.program(), s), s.var_value, sem_.stuck(s), 0, {}};
    const auto key = outcome_text(sem_.program(), o);
    auto [it, fresh] = outcomes_.try_emplace(key, std::move(o));
    if (fresh) {
      it->second.witness = path_to(si);
      outcome_order_.push_back(key);
    }
    it->second.paths = saturating_add(it->second.paths, paths_[si]);
  }

  void record_races(StateIndex si, const State& s, const std::vector<NodeId>& enabled) {
    for (std::size_t i = 0; i < enabled.size(); ++i)
      for (std::size_t j = i + 1; j < enabled.size(); ++j) {
        const auto a = enabled[i], b = enabled[j];
        if (reduction_.independent(a, b)) continue;
        auto [it, fresh] = races_.try_emplace({a, b});
        auto& race = it->second;
        if (!fresh && race.harmful) continue;  // its witnesses are final
        const bool harmful = order_matters(sem_, s, a, b);
        if (fresh || harmful) {
          const auto prefix = path_to(si);
          race = Race{a, b, sem_.access(a).var, harmful, prefix, prefix};
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
