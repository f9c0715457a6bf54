#include "explorer/session_search.hpp"

#include "explorer/fix.hpp"

#include <algorithm>
#include <limits>
#include <map>
#include <set>
#include <tuple>
#include <utility>

namespace tfsem::explorer {

namespace {

PathCount times(PathCount a, PathCount b) {
  PathCount out = 0;
  return __builtin_mul_overflow(a, b, &out) ? std::numeric_limits<PathCount>::max() : out;
}

PathCount plus(PathCount a, PathCount b) { return a + b < a ? std::numeric_limits<PathCount>::max() : a + b; }

// A fix that a run's races suggest, before it is checked on the whole session.
struct Candidate {
  std::size_t run = 0;
  std::string text;
  ProgramSpec fixed;
};

class RunsSearch {
 public:
  RunsSearch(std::vector<std::shared_ptr<const Program>> programs, const Options& semantics, const RunsOptions& options)
      : semantics_(semantics), options_(options), programs_(std::move(programs)) {}
  // The same runs with run k's graph, in every run that has it, replaced by
  // `fixed`: the user fixes the graph, not one run. It suggests no fixes.
  RunsSearch(const RunsSearch& search, std::size_t k, ProgramSpec fixed)
      : semantics_(search.semantics_), options_(search.options_), programs_(search.programs_) {
    options_.fix_budget = 0;
    const auto program = Program::build(std::move(fixed));
    for (auto& p : programs_)
      if (p->hash() == search.programs_[k]->hash()) p = program;
  }

  // Explores the runs (once): the outcomes, equal ones merged, and what the
  // search found on the way; the candidate fixes stay.
  RunsResult explore_all() {
    std::vector<Tensor> start;
    for (const auto& v : programs_.front()->variables()) start.push_back(v.initial);
    for (auto& s : from(0, start)) {
      auto same = std::find_if(result_.outcomes.begin(), result_.outcomes.end(),
                               [&](const RunsOutcome& o) { return o.runs == s.runs && o.var_value == s.var_value && o.path == s.path; });
      if (same == result_.outcomes.end()) result_.outcomes.push_back(std::move(s));
      else same->paths = plus(same->paths, s.paths);
    }
    return std::move(result_);
  }

  [[nodiscard]] const std::vector<Candidate>& candidates() const { return candidates_; }

 private:
  Options semantics_;
  RunsOptions options_;
  std::vector<std::shared_ptr<const Program>> programs_;
  // Per run: the sequences already explored from each start.
  std::map<std::size_t, std::vector<std::pair<std::vector<Tensor>, std::vector<RunsOutcome>>>> memo_;
  std::set<std::tuple<std::size_t, std::string, std::string, std::string, bool>> race_set_;
  std::vector<Candidate> candidates_;
  RunsResult result_;

  // What runs k on show, run k starting from VarValue `start`, persisting from the run before (S-SESSION).
  std::vector<RunsOutcome> from(std::size_t k, const std::vector<Tensor>& start) {
    if (k == programs_.size()) return {RunsOutcome{{}, {}, start, 1, {}}};
    auto& seen = memo_[k];
    for (const auto& [s, result] : seen)
      if (s == start) return result;
    auto spec = programs_[k]->spec();
    for (std::size_t x = 0; x < spec.variables.size(); ++x) spec.variables[x].init = start[x];
    const Semantics sem(Program::build(std::move(spec)), semantics_);
    const auto r = explore(sem, options_.explore);
    if (options_.explored) options_.explored(r);
    add(r);
    if (!r.complete && result_.stopped_by.empty()) result_.stopped_by = "run " + std::to_string(k + 1) + ": " + r.stopped_by;
    record_races(sem, r, k);
    if (options_.fix_budget > 0 && r.complete && (!r.deterministic() || r.violated())) record_fixes(sem, r, k);
    result_.violated = result_.violated || r.violated();
    std::vector<RunsOutcome> out;
    for (const auto& o : r.outcomes) {
      auto outputs = o;
      outputs.var_value.clear();
      const auto text = outcome_text(sem, outputs);
      for (auto rest : from(k + 1, o.var_value)) {
        auto path = o.path.conjoined(rest.path);
        if (!path) continue;  // this run and a later one took opposite branches on one term
        rest.path = std::move(*path);
        rest.runs.insert(rest.runs.begin(), text);
        rest.witnesses.insert(rest.witnesses.begin(), schedule_to_string(sem, o.witness));
        rest.paths = times(rest.paths, o.paths);
        out.push_back(std::move(rest));
      }
    }
    seen.emplace_back(start, out);
    return out;
  }

  void add(const Result& r) {
    auto& c = result_.counters;
    c.states_stored += r.counters.states_stored;
    c.states_matched += r.counters.states_matched;
    c.transitions += r.counters.transitions;
    c.terminal_states += r.counters.terminal_states;
    c.behaviours += r.counters.behaviours;
    c.transitions_pruned += r.counters.transitions_pruned;
    c.firings += r.counters.firings;
    result_.seconds += r.seconds;
  }

  // The fixes that make run k deterministic from this start; whether one makes
  // the session deterministic is for explore_runs to see.
  void record_fixes(const Semantics& sem, const Result& r, std::size_t k) {
    const auto& declared = programs_[k]->declared_variables();
    for (auto& f : suggest_fixes(sem, r, {options_.explore, options_.fix_budget, options_.may_order})) {
      auto text = fix_text(sem.program(), f);
      const bool seen = std::any_of(candidates_.begin(), candidates_.end(), [&](const Candidate& x) {
        return programs_[x.run]->hash() == programs_[k]->hash() && x.text == text;  // one graph, one fix
      });
      if (seen) continue;
      for (std::size_t x = 0; x < f.fixed.variables.size(); ++x)  // the run's own start, not this one
        f.fixed.variables[x].init = declared[x].init;
      candidates_.push_back({k, std::move(text), std::move(f.fixed)});
    }
  }

  void record_races(const Semantics& sem, const Result& r, std::size_t k) {
    const auto& p = sem.program();
    for (const auto& race : r.races) {
      RunRace named{k, transition_to_string(p, sem.contexts(), race.first), transition_to_string(p, sem.contexts(), race.second),
                    p.variable(race.var).name, race.harmful};
      if (race_set_.emplace(named.run, named.first, named.second, named.variable, named.harmful).second)
        result_.races.push_back(std::move(named));
    }
  }
};

}  // namespace

RunsResult explore_runs(const std::vector<std::shared_ptr<const Program>>& programs, const Options& semantics,
                        const RunsOptions& options) {
  RunsSearch search(programs, semantics, options);
  auto result = search.explore_all();
  if (!result.complete()) return result;
  // Each fix a run suggested, checked by exploring the session with it (at most fix_budget of them).
  const auto& candidates = search.candidates();
  for (std::size_t i = 0; i < candidates.size() && i < options.fix_budget; ++i) {
    const auto& c = candidates[i];
    auto fixed = RunsSearch(search, c.run, c.fixed).explore_all();
    if (fixed.deterministic() && !fixed.violated) result.fixes.push_back({c.run, c.text, c.fixed, std::move(fixed.outcomes)});
  }
  return result;
}

}  // namespace tfsem::explorer
