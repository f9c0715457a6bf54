// Expanding one explored state, shared by the search of explore.cpp and the
// distributed search of distributed.cpp: the races between its enabled
// accesses (and whether the two orders lead to different states), and its
// successors under the reduction, with the sleep set each one inherits.
// Expanding reads the state and its sleep set only, so where the state is
// expanded (which thread, which rank) changes nothing it finds; it knows
// nothing of the search around it but the reduction and the bounds.
#pragma once

#include "explorer/options.hpp"
#include "explorer/reduction.hpp"

#include <boost/container/small_vector.hpp>

#include <algorithm>
#include <span>
#include <vector>

namespace tfsem::explorer {

// Which pairs of accessors of one variable have been seen racing in the root
// context, and which of them harmfully: a byte per pair, read at every state,
// so kept dense (races in loops' contexts are always re-examined). Set by the
// one thread that records races, never while states are being expanded
// (explore.cpp reports a chunk between its expansions; a rank has one thread;
// findings.hpp sets them).
class RaceFlags {
 public:
  static constexpr std::uint8_t unseen = 0, benign = 1, harmful = 2;
  explicit RaceFlags(const Semantics& sem);
  [[nodiscard]] std::uint8_t get(VarId x, NodeId a, NodeId b) const {
    const auto& f = flags_[x.index()];
    return f.empty() ? unseen : f[index(x, a, b)];
  }
  void set(VarId x, NodeId a, NodeId b, std::uint8_t v);
  [[nodiscard]] std::size_t bytes() const;

 private:
  [[nodiscard]] std::size_t pairs(VarId x) const { return std::size_t{size_[x.index()]} * size_[x.index()]; }
  [[nodiscard]] std::size_t index(VarId x, NodeId a, NodeId b) const {
    return std::size_t{local_[a.index()]} * size_[x.index()] + local_[b.index()];
  }
  std::vector<std::uint32_t> local_;  // a node's index among its variable's accessors
  std::vector<std::uint32_t> size_;   // accessors by variable
  std::vector<std::vector<std::uint8_t>> flags_;  // by variable, allocated at its first race
};

// A race seen at a state: two enabled conflicting accesses, and whether the
// two orders lead to different states from there.
struct RaceSeen {
  Transition a, b;
  bool harmful;
};

// One successor of an expanded state: a move, which of its results, the
// landing row, every firing on the way, the sleep set it inherits, and the
// loop or function frame whose bound the firings would pass (then it is not taken).
struct SuccessorSeen {
  const Move& move;
  std::uint32_t result;
  std::span<const Code> row;
  std::span<const Step> steps;
  std::span<const Transition> sleep;
  FrameId exceeds;
};

// What one thread (or one rank) needs to expand states: its cache of firings,
// its reduction and scratch space.
class Expander {
 public:
  Expander(const Semantics& sem, Codec& codec, Por por, const Limits& limits);

  Firings firings;
  Reduction reduction;
  Landings landings;
  Frontier frontier;

  // The initial state, packed and settled (eager firings taken from every
  // node), into row and steps; returns the frame whose bound settling would pass.
  FrameId initial(Row& row, Schedule& steps);
  // The enabled transitions of row, into `frontier`; none: row is terminal.
  bool terminal(std::span<const Code> row) {
    reduction.frontier(row, frontier);
    return frontier.enabled.empty();
  }
  // After terminal(row) is false: every pair of enabled conflicting accesses
  // in row that `flags` does not already know to be harmful, into out.
  void races(std::span<const Code> row, const RaceFlags& flags, std::vector<RaceSeen>& out);
  // After terminal(row) is false: calls f(SuccessorSeen) for each successor
  // the reduction explores from row with `sleep`; returns the enabled
  // transitions it did not explore.
  template <class F>
  std::uint64_t successors(std::span<const Code> row, std::span<const Transition> sleep, F&& f) {
    sleep_.assign(sleep.begin(), sleep.end());
    reduction.moves(row, frontier, sleep_, moves_);
    for (const auto& m : moves_)
      if (m.kind != Move::Kind::write_phase) firings.prefetch(row, m.t);  // reduction.fire looks its effect up first
    for (const auto& m : moves_) {
      reduction.fire(row, m, landings);
      for (std::uint32_t r = 0; r < landings.size(); ++r) {
        const auto steps = landings.steps(r);
        inherited(steps);
        f(SuccessorSeen{m, r, landings.row(r), steps, next_sleep_, landings.exceeds(r)});
      }
      if (m.kind == Move::Kind::one && reduction.por() != Por::none) sleep_.insert(std::upper_bound(sleep_.begin(), sleep_.end(), m.t), m.t);
    }
    const auto& enabled = frontier.enabled;
    return enabled.size() - std::min(enabled.size(), moves_.size());
  }

 private:
  const Semantics& sem_;
  std::vector<Move> moves_;
  SleepSet sleep_, next_sleep_;
  std::vector<Transition> accessing_;  // races(): the enabled accesses, in order,
  std::vector<std::uint8_t> liveness_;  // and whether each one's input is dead, once looked at
  std::vector<std::pair<VarId, std::uint32_t>> by_var_;  // (variable, index in accessing_), sorted
  std::vector<std::uint32_t> at_;                        // by index in accessing_: where it is in by_var_
  std::vector<boost::container::small_vector<Transition, 2>> firsts_;  // commuting_races(): by node
  std::vector<Row> ab_, ba_;
  Row mid_;

  // Sleep-set rule: a sibling explored earlier, or a sleeper, still sleeps
  // after a move when it is independent of every firing in it; into next_sleep_.
  void inherited(std::span<const Step> steps);
  [[nodiscard]] bool accesses_conflict(Transition a, Transition b) const;
  // The benign races of the commuting updates accessing_[from..], into out.
  template <class Live>
  void commuting_races(std::size_t from, Live&& is_live, const RaceFlags& flags, std::vector<RaceSeen>& out);
  // The states reachable by firing a then b (every result of each), into out.
  void fire_both(std::span<const Code> row, Transition a, Transition b, std::vector<Row>& out);
  // Whether the two orders of a and b lead to different multisets of states.
  bool order_matters(std::span<const Code> row, Transition a, Transition b);
};

}  // namespace tfsem::explorer
