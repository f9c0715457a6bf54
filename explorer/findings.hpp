// What a search (explore.cpp, distributed.cpp) records as it expands states:
// the terminal states, grouped into outcomes by their text, and the races,
// each with the stored state its witness ends at, and the race flags the
// expansion reads (expansion.hpp). Each search rebuilds the schedules to those
// states after it ends, from what it keeps of how a state was first reached
// (explore.cpp: its parent; distributed.cpp: its parent's rank and index, and
// the move); race_of makes a race's two witnesses from one.
#pragma once

#include "explorer/checkpoint_file.hpp"
#include "explorer/expansion.hpp"
#include "explorer/result.hpp"
#include "explorer/state_table.hpp"

#include <cstdint>
#include <map>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace tfsem::explorer {

// A stored state, and its level (the firings from the initial state).
struct Seen {
  StateIndex state;
  std::uint64_t level;
};

class Findings {
 public:
  // An outcome: its key (its text, with the subterms its values share
  // defined once), the first terminal state showing it, and the explored
  // behaviours reaching any of them.
  struct Terminal {
    std::string text;
    Seen first;
    PathCount paths;
  };
  // A race: whether it was harmful at any state, and its witness's state,
  // the first where it was harmful, if any, or else the first.
  struct Raced {
    bool harmful;
    Seen at;
  };
  using Races = std::map<std::pair<Transition, Transition>, Raced>;

  explicit Findings(const Semantics& sem) : sem_(sem), flags_(sem) {}

  // A terminal state s, stored at `at`, reached along `paths` behaviours.
  void terminal(const State& s, Seen at, PathCount paths, Counters& counters);
  // A race seen at the state stored at `at`. Races of the root context set
  // the flags the expansion reads, which must not change while states are
  // being expanded. Of the benign races of two commuting updates (S-COMMUTE)
  // in other contexts, one is kept by pair of nodes.
  void race(const RaceSeen& seen, Seen at);
  // An outcome by its key (a terminal state's, or one found before a
  // resumed search): its first terminal state is the first of the lowest
  // level, its behaviours add up.
  void outcome(std::string text, Seen first, PathCount paths);

  // By their first terminal state, in the order of the calls.
  [[nodiscard]] const std::vector<Terminal>& outcomes() const { return outcomes_; }
  [[nodiscard]] const Races& races() const { return races_; }
  [[nodiscard]] const RaceFlags& race_flags() const { return flags_; }
  [[nodiscard]] std::size_t bytes() const { return flags_.bytes(); }

  // What was found so far (checkpoint.hpp); restore() into findings of
  // nothing yet, the race flags set again from the races.
  void save(CheckpointOut& out) const;
  void restore(CheckpointIn& in);

 private:
  const Semantics& sem_;
  RaceFlags flags_;
  std::vector<Terminal> outcomes_;
  std::unordered_map<std::string, std::size_t> by_text_;  // index in outcomes_
  Races races_;
  // The race kept for each pair of commuting updates' nodes (S-COMMUTE), by its key in races_.
  std::map<std::pair<NodeId, NodeId>, std::pair<Transition, Transition>> commuting_;
};

// Transitions by node, then context, in the canonical order of contexts
// (Contexts::before), the same in every process.
struct Canonical {
  const Contexts* contexts;
  bool operator()(Transition a, Transition b) const {
    return a.node != b.node ? a.node < b.node : contexts->before(a.context, b.context);
  }
  bool operator()(const std::pair<Transition, Transition>& a, const std::pair<Transition, Transition>& b) const {
    return (*this)(a.first, b.first) || (a.first == b.first && (*this)(a.second, b.second));
  }
};

// Whether a and b are updates that commute (S-COMMUTE), not both in the root
// context: of their races, the findings keep one by pair of nodes.
bool commuting_race(const Semantics& sem, Transition a, Transition b);

// The race of a and b, harmful or not, whose witnesses are `prefix`, the
// schedule to a state where both are enabled, then each order of the two;
// `path` is that state's path condition.
Race race_of(const Semantics& sem, Transition a, Transition b, bool harmful, Schedule prefix, PathCondition path);

}  // namespace tfsem::explorer
