// SIGINT and SIGTERM during a search (check, explore, conform): the first asks
// the work to stop and report what it has found (explorer::Limits::stop); a
// second ends the process at once, as it would have without the handler.
#pragma once

#include <atomic>

namespace tfsem::cli {

// Installs the handlers, once (not for a signal the process was started
// ignoring, as a background job is), and returns the flag they set.
const std::atomic<bool>& stop_on_interrupt();

}  // namespace tfsem::cli
