// Behaviours under an explicit choice of steps: the runs of a session (paper
// section 2: "mutable state does persist across executions") one firing at a
// time. Used to replay a schedule and to take seeded random walks.
#pragma once

#include "semantics/semantics.hpp"

#include <cstdint>
#include <iterator>
#include <optional>
#include <utility>
#include <string>
#include <vector>

namespace tfsem {

// One step of a schedule: a transition and, for a relation, which of its results.
struct Step {
  NodeId node;
  ContextId context = kRootContext;
  std::uint32_t choice = 0;
  [[nodiscard]] Transition transition() const { return {node, context}; }
  friend bool operator==(const Step&, const Step&) = default;
};
using Schedule = std::vector<Step>;  // one run's firings

// "n1,n2/1,body[while:2]": node names, with [frame:iteration,...] naming a
// loop's context and /k picking the k-th result of a relation. Throws
// InputError (T-SCHEDULE) for an unknown node or frame.
Schedule parse_schedule(const Semantics& sem, const std::string& text);
std::string schedule_to_string(const Semantics& sem, const Schedule& s);
std::string step_to_string(const Semantics& sem, const Step& s);

// Whether `step` can fire in s, and if not, why (S-ENABLED, and a choice in range).
std::optional<std::string> refuse_step(const Semantics& sem, const State& s, const Step& step);

// Fires the schedule's steps from s, in place; stops at the first step that
// cannot fire and returns why (refuse_step's reason).
std::optional<std::string> replay(const Semantics& sem, State& s, const Schedule& schedule);

// A run's outputs: each fetched output edge's contents, by fetch name.
std::vector<std::pair<std::string, Content>> outputs(const Program& p, const State& s);

// Picks steps for a seeded random walk (splitmix64; the same seed gives the same walk).
class RandomScheduler {
 public:
  explicit RandomScheduler(std::uint64_t seed) : state_(seed) {}
  std::uint64_t next();
  std::size_t below(std::size_t n) { return static_cast<std::size_t>(next() % n); }
  // A uniformly random permutation of the range (Fisher-Yates).
  template <class Range>
  void shuffle(Range& r) {
    for (std::size_t i = std::size(r); i > 1; --i) std::swap(r[i - 1], r[below(i)]);
  }

 private:
  std::uint64_t state_;
};

}  // namespace tfsem
