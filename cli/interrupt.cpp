#include "cli/interrupt.hpp"

#include <signal.h>

namespace tfsem::cli {

namespace {

std::atomic<bool> stop_requested{false};
static_assert(std::atomic<bool>::is_always_lock_free, "the handler may only touch a lock-free atomic");

// Async-signal-safe: an atomic exchange, sigaction and raise only.
extern "C" void on_signal(int sig) {
  if (!stop_requested.exchange(true)) return;
  struct sigaction dfl {};
  dfl.sa_handler = SIG_DFL;
  sigaction(sig, &dfl, nullptr);
  raise(sig);  // delivered, with its default action, when the handler returns
}

bool install() {
  for (int sig : {SIGINT, SIGTERM}) {
    struct sigaction old {};
    sigaction(sig, nullptr, &old);
    if (old.sa_handler == SIG_IGN) continue;
    struct sigaction on {};
    on.sa_handler = on_signal;
    on.sa_flags = SA_RESTART;  // output under way goes on
    sigemptyset(&on.sa_mask);
    sigaction(sig, &on, nullptr);
  }
  return true;
}

}  // namespace

const std::atomic<bool>& stop_on_interrupt() {
  static const bool installed = install();
  (void)installed;
  return stop_requested;
}

StopToken& command_stop() {
  static StopToken token;
  static const bool watching = (token.watch(&stop_on_interrupt()), true);
  (void)watching;
  return token;
}

}  // namespace tfsem::cli
