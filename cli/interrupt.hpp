// SIGINT and SIGTERM during a command that stops on its limits (check,
// explore, conform, refines): the first asks the work to stop and report what
// it has found (the command's stop token); a second ends the process at once,
// as it would have without the handler.
#pragma once

#include "support/stop_token.hpp"

#include <atomic>

namespace tfsem::cli {

// Installs the handlers, once (not for a signal the process was started
// ignoring, as a background job is), and returns the flag they set.
const std::atomic<bool>& stop_on_interrupt();

// The command's stop token, which every phase polls: it watches the handlers'
// flag (installing them); its other limits are SearchOptions::start's.
StopToken& command_stop();

}  // namespace tfsem::cli
