// Export of a graph to Promela for SPIN, the explorer's peer in the
// agreement test and the benchmark.
//
// Section 3 graphs (no control flow): each node is one process whose single
// firing is one atomic guarded step, enabled exactly when S-ENABLED says:
// every incoming edge (a one-slot channel, declared xr/xs so that SPIN's
// partial-order reduction can act) holds its contents. An input edge is never
// refilled and only its destination reads it, so it is not a channel: its
// contents are a constant of that node's step. Variables are globals; the
// values a step computes pass through `hidden` globals, which are not part of
// SPIN's state, so no state remembers them. A monitor prints each terminal
// state's outcome, in the text tfsem check uses, when no node can fire
// (timeout).
//
// Graphs with control flow (section 4): the execution contexts are unrolled
// statically, each loop up to max_iterations iterations (contexts nested as
// the frames are), and the state is kept in globals:
//  - a slot (edge, context) is a status byte, EMPTY, LIVE (a value, GO or a
//    variable handle) or DEAD, and for a tensor edge an int value (a bool is
//    0 or 1); a loop invariant (a constant Enter's output) has its slot in
//    iteration 0 only, read by every iteration and never consumed
//    (C-ENTER-CONST); input edges are slots that start LIVE;
//  - a bit per fired record (C-ONCE): (node, context), and for an Exit
//    (Exit, parent context), shared by its transitions of every iteration, so
//    it delivers once per frame instance;
//  - derived bits, functions of the rest of the state (so they add no
//    states), recomputed after every step: pres (the context exists: a slot
//    or a record in it or nested in it is set), done (C-DONE: iteration j-1
//    is done, or for j = 0 every Enter fired, and no transition in iteration
//    j or nested in it is enabled, dead Exits of its own frame aside) and act
//    (the context exists and is started, C-BOUND: j < d + parallel_iterations,
//    i.e. iteration j - parallel_iterations is done, and the parent is act).
// One process `graph` fires every transition: each (node, context), and each
// result of a relation (Choice; a Merge with several live inputs), is one
// d_step option, guarded by act and a #define EN<node><context> of C-ENABLED's
// local conditions (locally_enabled in semantics/frontier_impl.hpp), followed
// in the same atomic step by the update of the derived bits. A dead Exit
// (C-EXIT-DEAD) fires from the last existing iteration once its frame
// instance is complete. A NextIteration that would put a live value in
// iteration max_iterations prints a BEYOND line and fails an assertion, as
// tfsem check stops INCOMPLETE there. The monitor prints each terminal
// outcome in tfsem check's text: fetched outputs (i32, bool, GO, DEAD or
// EMPTY), variables, stuck transitions (S-STUCK) and violations
// (C-VIOLATION). tfsem lists stuck transitions by context number, which
// follows the order its search creates contexts in; the monitor lists them as
// a breadth-first search creates them (by iterations, outermost first, then
// by frame), so contexts of sibling loops created in another interleaving
// would be listed in another order. A printed value goes through a scratch
// variable, as SPIN hides variables that only printf reads.
#pragma once

#include "semantics/program.hpp"

#include <cstdint>
#include <string>

namespace tfsem::promela {

struct PromelaOptions {
  // Iterations of each loop unrolled for graphs with control flow (contexts
  // iteration 0 .. max_iterations - 1), as tfsem check --max-iterations.
  std::uint32_t max_iterations = 4;
};

// Throws InputError naming each node, edge or variable that cannot be
// exported faithfully (X-PROMELA). Section 3 graphs: only i32 scalars, and the
// functions Identity, Copy, Snd, Const, Choice, Add, Sub, Mul and Neg (and
// Assign-f for those f). Graphs with control flow: i32 and bool scalars,
// those functions and LoopCond, Less and Equal (Assign-f for Snd, Add, Sub
// and Mul), and every control-flow op, Ref forms included.
std::string to_promela(const Program& p, const PromelaOptions& options = {});

}  // namespace tfsem::promela
