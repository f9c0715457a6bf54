// Export of a graph to Promela for SPIN (issue: the explorer's peer). Each
// node is one process whose single firing is one atomic guarded step, enabled
// exactly when S-ENABLED says: every incoming edge (a one-slot channel,
// declared xr/xs so that SPIN's partial-order reduction can act) holds its
// contents. An input edge is never refilled and only its destination reads
// it, so it is not a channel: its contents are a constant of that node's step.
// Variables are globals; the values a step computes pass through `hidden`
// globals, which are not part of SPIN's state, so no state remembers them.
// A monitor prints each terminal state's outcome, in the text tfsem check
// uses, when no node can fire (timeout).
#pragma once

#include "semantics/program.hpp"

#include <string>

namespace tfsem::format {

// Throws InputError naming each node, edge or variable that cannot be
// exported faithfully: only i32 scalars, and the functions Identity, Copy,
// Snd, Const, Choice, Add, Sub, Mul and Neg (and Assign-f for those f).
std::string to_promela(const Program& p);

}  // namespace tfsem::format
