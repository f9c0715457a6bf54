// The handler of SIGINT and SIGTERM (cli/interrupt.hpp): the first signal sets
// the stop flag and the process goes on; a second ends it, by that signal.
#include <doctest/doctest.h>

#include "cli/interrupt.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <csignal>

using tfsem::cli::stop_on_interrupt;

namespace {
// Runs f in a child process; returns the signal that ended it, or 0 when it exited.
template <class F>
int end_of_child(F f) {
  const pid_t pid = fork();
  if (pid == 0) {
    f();
    _exit(0);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFSIGNALED(status) ? WTERMSIG(status) : 0;
}
}  // namespace

TEST_CASE("a first SIGINT or SIGTERM sets the stop flag; a second ends the process") {
  CHECK(end_of_child([] {
          const auto& stop = stop_on_interrupt();
          if (stop.load()) _exit(1);
          std::raise(SIGINT);
          if (!stop.load()) _exit(2);
        }) == 0);
  CHECK(end_of_child([] {
          stop_on_interrupt();
          std::raise(SIGTERM);
          std::raise(SIGINT);
        }) == SIGINT);
  CHECK(end_of_child([] {
          stop_on_interrupt();
          std::raise(SIGINT);
          std::raise(SIGINT);
        }) == SIGINT);
}

TEST_CASE("a signal the process was started ignoring stays ignored (a background job's SIGINT)") {
  CHECK(end_of_child([] {
          std::signal(SIGINT, SIG_IGN);
          const auto& stop = stop_on_interrupt();
          std::raise(SIGINT);
          std::raise(SIGINT);
          if (stop.load()) _exit(1);
        }) == 0);
}
