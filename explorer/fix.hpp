// Fix suggestions for a nondeterministic graph: control edges that order the
// two nodes of harmful races; for races between iterations of a loop, a
// parallel_iterations of 1 that runs the loop's iterations one at a time; and
// for a variable updated by reads, functions and writes that are not atomic
// (TensorFlow 1's use_locking=false), each such update made one Assign-f
// (use_locking=true). Between concurrent runs, which no control edge of the
// user's may order, a barrier on a variable: every run's reads of x before
// any other run's update of x, with those updates atomic, as TensorFlow 1's
// SyncReplicasOptimizer has the workers' gradients wait for one another before
// they are applied. Each suggestion is checked by exploring the fixed graph
// before it is offered.
#pragma once

#include "explorer/explore.hpp"

#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace tfsem::explorer {

struct Fix {
  std::vector<std::pair<NodeId, NodeId>> control_edges;  // (from, to), in the original graph's ids
  std::vector<FrameId> sequential_loops;                 // loops given parallel_iterations 1
  std::vector<NodeId> atomic_updates;  // Writes whose Read, f and Write become one Assign-f (use_locking)
  std::vector<VarId> barriers;         // the variables the runs synchronize on (a barrier between runs)
  ProgramSpec fixed;                                     // the graph with the fix applied
  std::vector<Outcome> outcomes;                         // one per path condition, proved by exploration
};

struct FixOptions {
  ExploreOptions explore{};
  std::size_t max_explorations = 32;  // a budget: each candidate costs one exploration
  // Whether the user can add a control edge from node a to node b of the
  // graph (concurrent runs: only within one run); none: every edge.
  std::function<bool(const Program&, NodeId a, NodeId b)> may_order{};
};

// Single fixes first (a control edge in each direction of each harmful race
// between two nodes of one frame, or parallel_iterations 1 for a loop whose
// iterations race, when they fit in half the budget), then, if none suffices,
// every harmful race ordered as one outcome's witness orders it (and every
// racing loop made sequential), with the parts that turn out unnecessary
// dropped. The explorations share the options' stop token: once it stops,
// no candidate is verified any more. An allocation that fails stops the
// token, out of memory, and returns the fixes verified before (without a
// token, the std::bad_alloc goes on). Empty when nothing within the budget
// makes the graph deterministic without violations (for instance, when the
// nondeterminism comes from a relation f, not from a race).
std::vector<Fix> suggest_fixes(const Semantics& sem, const Result& r, const FixOptions& options = {});

// "a -> b, c -> d", "parallel_iterations 1 for loop 'while'", "make atomic (use_locking) ..."
// and "synchronize the runs on x ...".
std::string fix_text(const Program& p, const Fix& f);
// The fixed graph's outcomes, as outcome_text writes each, between " | ".
std::string fix_outcomes_text(const Semantics& sem, const Fix& f);

}  // namespace tfsem::explorer
