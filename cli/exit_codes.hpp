// The documented exit codes of every tfsem command (README, "Exit codes").
#pragma once

namespace tfsem::cli {

enum ExitCode : int {
  kSuccess = 0,          // done; for check: the graph is deterministic
  kPropertyViolated = 1, // for check: the graph is nondeterministic; for conform: a mismatch
  kBadInput = 2,         // malformed graph, feed, schedule or command line
  kIncomplete = 3,       // a limit (states, memory, time) stopped the work before a verdict, or none can be given (I-STATEFUL-VAR, X-HALT)
  kInternalError = 4,    // a bug in tfsem: please report it
};

}  // namespace tfsem::cli
