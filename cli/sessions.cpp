#include "cli/sessions.hpp"

#include "cli/exit_codes.hpp"
#include "cli/schedule_file.hpp"
#include "explorer/explore.hpp"
#include "explorer/fix.hpp"
#include "semantics/diagnostic.hpp"
#include "formats/json/graph_json.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <limits>
#include <map>
#include <set>

namespace tfsem::cli {

RunSpec parse_run(const std::string& text) {
  RunSpec run{text, {}};
  auto add_list = [&](const std::string& list) {
    for (std::size_t begin = 0; begin <= list.size();) {
      const auto end = std::min(list.find(',', begin), list.size());
      if (end > begin) run.fetches.push_back(list.substr(begin, end - begin));
      begin = end + 1;
    }
  };
  if (text.find('=') == std::string::npos) {
    add_list(text);
    return run;
  }
  for (std::size_t begin = 0; begin < text.size();) {
    const auto end = std::min(text.find(';', begin), text.size());
    const auto part = text.substr(begin, end - begin);
    const auto eq = part.find('=');
    const auto key = part.substr(0, eq);
    if (eq == std::string::npos || (key != "fetch" && key != "targets"))
      throw InputError("", "--run", "'" + text + "'", "a run is fetch=NAMES;targets=NAMES, or a list of fetches");
    add_list(part.substr(eq + 1));
    begin = end + 1;
  }
  return run;
}

std::vector<std::shared_ptr<const Program>> session_programs(const GraphOptions& graph, const std::vector<RunSpec>& runs) {
  std::vector<std::shared_ptr<const Program>> programs;
  for (const auto& r : runs) {
    auto g = graph;
    g.fetches = r.fetches;
    programs.push_back(g.program(programs.empty()));  // the import's notes once
    const auto& vars = programs.back()->variables();
    const auto& first = programs.front()->variables();
    for (std::size_t x = 0; x < vars.size(); ++x)
      if (vars.size() != first.size() || vars[x].name != first[x].name)
        throw InputError("", "--run", "'" + r.text + "'", "its graph's variables differ from the first run's");
  }
  return programs;
}

namespace {

using explorer::PathCount;

PathCount times(PathCount a, PathCount b) {
  PathCount out = 0;
  return __builtin_mul_overflow(a, b, &out) ? std::numeric_limits<PathCount>::max() : out;
}

// What the runs from one on show, after a given start: one line of outputs per
// run, the witness of each, the final VarValue, the behaviours reaching it.
struct Sequence {
  std::vector<std::string> runs, witnesses;
  std::vector<Tensor> var_value;
  PathCount paths = 1;
};

// A fix of one run's graph that a run's races suggest (explorer/fix.hpp).
struct RunFix {
  std::size_t run = 0;
  std::string text;
  ProgramSpec fixed;  // the run's graph with the fix applied
};

class Session {
 public:
  Session(const GraphOptions& graph, const SearchOptions& search, const std::vector<RunSpec>& runs)
      : explore_(search.make()), programs_(session_programs(graph, runs)) {
    options_.terms.normalize = graph.normalize;
  }
  // The same session with run k's graph, in every run that has it, replaced by
  // `fixed`: the user fixes the graph, not one run. It suggests no fixes.
  Session(const Session& session, std::size_t k, ProgramSpec fixed)
      : options_(session.options_), explore_(session.explore_), programs_(session.programs_) {
    const auto program = Program::build(std::move(fixed));
    for (auto& p : programs_)
      if (p->hash() == session.programs_[k]->hash()) p = program;
  }

  // Whether a run's races suggest fixes of its graph (at most `budget` explorations each).
  void suggest_fixes(std::size_t budget) { fix_budget_ = budget; }

  std::vector<Sequence> sequences() {
    std::vector<Tensor> start;
    for (const auto& v : programs_.front()->variables()) start.push_back(v.initial);
    return from(0, start);
  }

  [[nodiscard]] const std::vector<std::shared_ptr<const Program>>& programs() const { return programs_; }
  [[nodiscard]] const std::vector<std::string>& races() const { return races_; }
  [[nodiscard]] const std::vector<RunFix>& fixes() const { return fixes_; }
  [[nodiscard]] const explorer::Counters& counters() const { return counters_; }
  [[nodiscard]] const std::string& stopped_by() const { return stopped_by_; }
  [[nodiscard]] bool violated() const { return violated_; }
  [[nodiscard]] double seconds() const { return seconds_; }

 private:
  Options options_;
  explorer::ExploreOptions explore_;
  std::vector<std::shared_ptr<const Program>> programs_;
  // Per run: the sequences already explored from each start.
  std::map<std::size_t, std::vector<std::pair<std::vector<Tensor>, std::vector<Sequence>>>> memo_;
  std::vector<std::string> races_;
  std::set<std::string> race_set_;
  std::size_t fix_budget_ = 0;
  std::vector<RunFix> fixes_;
  explorer::Counters counters_;
  std::string stopped_by_;
  bool violated_ = false;
  double seconds_ = 0;

  // Run k, VarValue `start` persisting from the run before (S-SESSION).
  std::vector<Sequence> from(std::size_t k, const std::vector<Tensor>& start) {
    if (k == programs_.size()) return {Sequence{{}, {}, start, 1}};
    auto& seen = memo_[k];
    for (const auto& [s, result] : seen)
      if (s == start) return result;
    auto spec = programs_[k]->spec();
    for (std::size_t x = 0; x < spec.variables.size(); ++x) spec.variables[x].init = start[x];
    const Semantics sem(Program::build(std::move(spec)), options_);
    const auto r = explorer::explore(sem, explore_);
    end_progress(explore_, r);
    add(r);
    if (!r.complete && stopped_by_.empty()) stopped_by_ = "run " + std::to_string(k + 1) + ": " + r.stopped_by;
    record_races(sem, r, k);
    if (fix_budget_ > 0 && r.complete && (!r.deterministic() || r.violated())) record_fixes(sem, r, k);
    violated_ = violated_ || r.violated();
    std::vector<Sequence> out;
    for (const auto& o : r.outcomes) {
      auto outputs = o;
      outputs.var_value.clear();
      const auto text = explorer::outcome_text(sem, outputs);
      for (auto rest : from(k + 1, o.var_value)) {
        rest.runs.insert(rest.runs.begin(), text);
        rest.witnesses.insert(rest.witnesses.begin(), schedule_to_string(sem, o.witness));
        rest.paths = times(rest.paths, o.paths);
        out.push_back(std::move(rest));
      }
    }
    seen.emplace_back(start, out);
    return out;
  }

  void add(const explorer::Result& r) {
    counters_.states_stored += r.counters.states_stored;
    counters_.states_matched += r.counters.states_matched;
    counters_.transitions += r.counters.transitions;
    counters_.terminal_states += r.counters.terminal_states;
    counters_.behaviours += r.counters.behaviours;
    counters_.transitions_pruned += r.counters.transitions_pruned;
    seconds_ += r.seconds;
  }

  // The fixes that make run k deterministic from this start; whether one makes
  // the session deterministic is for check_session to see.
  void record_fixes(const Semantics& sem, const explorer::Result& r, std::size_t k) {
    for (auto& f : explorer::suggest_fixes(sem, r, {explore_, fix_budget_})) {
      auto text = explorer::fix_text(sem.program(), f);
      const bool seen = std::any_of(fixes_.begin(), fixes_.end(), [&](const RunFix& x) {
        return programs_[x.run]->hash() == programs_[k]->hash() && x.text == text;  // one graph, one fix
      });
      if (seen) continue;
      for (std::size_t x = 0; x < f.fixed.variables.size(); ++x)  // the run's own start, not this one
        f.fixed.variables[x].init = programs_[k]->spec().variables[x].init;
      fixes_.push_back({k, std::move(text), std::move(f.fixed)});
    }
  }

  void record_races(const Semantics& sem, const explorer::Result& r, std::size_t k) {
    const auto& p = sem.program();
    for (const auto& race : r.races) {
      const auto line = "run " + std::to_string(k + 1) + ": " + transition_to_string(p, sem.contexts(), race.first) + " " +
                        transition_to_string(p, sem.contexts(), race.second) + " | variable " + p.variable(race.var).name +
                        " | " + (race.harmful ? "harmful" : "benign");
      if (race_set_.insert(line).second) races_.push_back(line);
    }
  }
};

// Equal sequences (from different starts, or different witnesses) are one outcome.
std::vector<Sequence> merged(std::vector<Sequence> all) {
  std::vector<Sequence> out;
  for (auto& s : all) {
    auto same = std::find_if(out.begin(), out.end(), [&](const Sequence& o) { return o.runs == s.runs && o.var_value == s.var_value; });
    if (same == out.end()) out.push_back(std::move(s));
    else same->paths = same->paths + s.paths < same->paths ? std::numeric_limits<PathCount>::max() : same->paths + s.paths;
  }
  return out;
}

std::string values_text(const Program& p, const std::vector<Tensor>& values) {
  std::string out;
  for (std::size_t x = 0; x < values.size(); ++x)
    out += (out.empty() ? "" : "; ") + p.variable(VarId(x)).name + "=" + values[x].to_string();
  return out;
}

// "run 1: OUTPUTS | run 2: OUTPUTS | VarValue".
std::string sequence_text(const Program& last, const Sequence& o) {
  std::string out;
  for (std::size_t k = 0; k < o.runs.size(); ++k) out += "run " + std::to_string(k + 1) + ": " + (o.runs[k].empty() ? "-" : o.runs[k]) + " | ";
  return out + values_text(last, o.var_value);
}

// A fix of one run's graph that makes the whole session deterministic, with the session's one outcome.
struct SessionFix {
  const RunFix* fix;
  Sequence outcome;
};

// "run 2" or "runs 2, 3": the runs whose graph is run k's.
std::string runs_text(const std::vector<std::shared_ptr<const Program>>& programs, std::size_t k) {
  std::vector<std::string> runs;
  for (std::size_t j = 0; j < programs.size(); ++j)
    if (programs[j]->hash() == programs[k]->hash()) runs.push_back(std::to_string(j + 1));
  std::string out = runs.size() == 1 ? "run " : "runs ";
  for (std::size_t i = 0; i < runs.size(); ++i) out += (i ? ", " : "") + runs[i];
  return out;
}

// Each fix a run suggested, checked by exploring the session with it (at most `budget` of them).
std::vector<SessionFix> verified_fixes(const Session& session, std::size_t budget) {
  std::vector<SessionFix> out;
  for (std::size_t i = 0; i < session.fixes().size() && i < budget; ++i) {
    const auto& f = session.fixes()[i];
    Session fixed(session, f.run, f.fixed);
    const auto outcomes = merged(fixed.sequences());
    if (fixed.stopped_by().empty() && !fixed.violated() && outcomes.size() == 1) out.push_back({&f, outcomes.front()});
  }
  return out;
}

}  // namespace

int check_session(const GraphOptions& graph, const SearchOptions& search, const std::vector<RunSpec>& runs, unsigned repeats,
                  std::size_t fix_budget, const std::string& witness_dir, bool json) {
  std::vector<RunSpec> all;
  for (unsigned k = 0; k < repeats; ++k) all.insert(all.end(), runs.begin(), runs.end());
  Session session(graph, search, all);
  session.suggest_fixes(fix_budget);
  const auto outcomes = merged(session.sequences());
  const bool complete = session.stopped_by().empty();
  const auto fixes = complete ? verified_fixes(session, fix_budget) : std::vector<SessionFix>{};
  const auto* verdict = !complete               ? "incomplete"
                        : session.violated()      ? "violation"
                        : outcomes.size() == 1    ? "deterministic"
                                                  : "nondeterministic";
  const auto& programs = session.programs();
  const auto& last = *programs.back();
  const auto& c = session.counters();
  if (json) {
    using nlohmann::json;
    json run_list = json::array(), outcome_list = json::array(), fix_list = json::array();
    for (std::size_t k = 0; k < all.size(); ++k)
      run_list.push_back({{"fetch", all[k].fetches}, {"hash", programs[k]->hash_hex()}});
    for (const auto& o : outcomes)
      outcome_list.push_back({{"runs", o.runs}, {"VarValue", format::var_value_to_json(last, o.var_value)},
                              {"behaviours", o.paths}, {"witness", o.witnesses}});
    for (const auto& f : fixes)
      fix_list.push_back({{"runs", runs_text(programs, f.fix->run)}, {"fix", f.fix->text}, {"outcome", sequence_text(last, f.outcome)}});
    std::cout << json{{"graph", last.name()}, {"runs", run_list}, {"por", search.por}, {"complete", complete},
                      {"stopped_by", session.stopped_by()}, {"outcomes", outcome_list}, {"verdict", verdict},
                      {"races", session.races()}, {"fixes", fix_list},
                      {"counters", {{"states_stored", c.states_stored}, {"states_matched", c.states_matched},
                                    {"transitions", c.transitions}, {"terminal_states", c.terminal_states},
                                    {"behaviours_explored", c.behaviours}, {"transitions_pruned", c.transitions_pruned}}},
                      {"seconds", session.seconds()}}
                     .dump(2)
              << "\n";
  } else {
    std::cout << "graph: " << last.name() << "\nruns: " << all.size() << "\n";
    for (std::size_t k = 0; k < all.size(); ++k)
      std::cout << "run: " << k + 1 << " | " << (all[k].text.empty() ? "-" : all[k].text) << " | hash "
                << programs[k]->hash_hex() << "\n";
    std::cout << "por: " << search.por << "\n";
    if (!complete) std::cout << "INCOMPLETE: stopped by " << session.stopped_by() << "\n";
    std::cout << "outcomes: " << outcomes.size() << (complete ? "" : " (at least)") << "\n";
    for (const auto& o : outcomes) {
      std::string witness;
      for (const auto& w : o.witnesses) witness += (witness.empty() ? "" : ";") + w;
      std::cout << "outcome: " << sequence_text(last, o) << " | behaviours " << o.paths << " | witness " << witness << "\n";
    }
    std::cout << "verdict: " << verdict << "\n";
    for (const auto& r : session.races()) std::cout << "race: " << r << "\n";
    for (const auto& f : fixes)
      std::cout << "fix: " << runs_text(programs, f.fix->run) << ": " << f.fix->text
                << " | verified deterministic: " << sequence_text(last, f.outcome) << "\n";
    if (fix_budget > 0 && complete && outcomes.size() > 1 && fixes.empty()) std::cout << "fix: none found\n";
    std::cout << "states-stored: " << c.states_stored << "\nstates-matched: " << c.states_matched
              << "\ntransitions: " << c.transitions << "\nterminal-states: " << c.terminal_states
              << "\nbehaviours-explored: " << c.behaviours << "\ntransitions-pruned: " << c.transitions_pruned << "\n";
    char t[32];
    std::snprintf(t, sizeof t, "%.3f", session.seconds());
    std::cout << "time: " << t << "s\n";
  }
  if (!witness_dir.empty()) {
    std::filesystem::create_directories(witness_dir);
    for (std::size_t k = 0; k < outcomes.size(); ++k) {
      std::vector<std::pair<std::string, std::string>> runs_of;
      for (std::size_t j = 0; j < programs.size(); ++j) runs_of.emplace_back(programs[j]->hash_hex(), outcomes[k].witnesses[j]);
      write_session_schedule_file(witness_dir + "/outcome-" + std::to_string(k + 1) + ".schedule", runs_of,
                                  "witness of outcome " + sequence_text(last, outcomes[k]));
    }
  }
  if (!complete) return kIncomplete;
  return outcomes.size() == 1 && !session.violated() ? kSuccess : kPropertyViolated;
}

}  // namespace tfsem::cli
