// The exhaustive search over single firings (section 3.2.1; in execution
// contexts, section 4): every terminal state the semantics allows, every race
// between two accesses to one variable, every violation, with a witness
// schedule for each (result.hpp). The search knows the semantics only through
// its interface (initial, frontier, fire, access, stuck, violations), keeps
// states packed (codec.hpp) and firings cached (firings.hpp), expands them as
// the distributed search does (expansion.hpp), records what it finds and when
// it stops as that one does too (findings.hpp, stopping.hpp), and which
// firings it explores is the reduction's business (reduction.hpp).
#pragma once

#include "explorer/options.hpp"
#include "explorer/result.hpp"

namespace tfsem::explorer {

// With `checkpoints`, a checkpoint is written every checkpoints->every_s
// seconds, when the search ends, and when it stops on its token, its
// --max-states or its --max-memory (not at a bound, nor out of memory: the
// last one stays); with checkpoints->resume the search continues from one.
// A checkpoint that cannot be used throws InputError naming the file and why.
Result explore(const Semantics& sem, const ExploreOptions& options = {}, const Checkpoints* checkpoints = nullptr);

}  // namespace tfsem::explorer
