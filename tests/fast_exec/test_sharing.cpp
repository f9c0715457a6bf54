// How the executor's workers share tasks (fast_exec/workers.hpp): a hungry
// worker that has spun out sleeps with its ask withdrawn, is handed nothing
// unless a busy worker rouses it with a task, and every take ends when the
// run does.
#include <doctest/doctest.h>

#include "fast_exec/workers.hpp"

#include <chrono>
#include <thread>

using namespace tfsem::fast_exec;

namespace {

// Waits (at most ten seconds) for what another thread makes true.
template <class Condition>
bool eventually(Condition c) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (!c()) {
    if (std::chrono::steady_clock::now() > until) return false;
    std::this_thread::yield();
  }
  return true;
}

}  // namespace

TEST_CASE("a sleeping hungry worker is handed a task only when roused with it, and every take ends with the run") {
  Sharing s;
  s.start(2);  // two busy workers: this thread and the thief
  Task got;
  int takes = 0;
  std::thread thief([&] {
    while (s.take(got, 0)) ++takes;  // its stack: the task taken, fired at once
  });
  REQUIRE(eventually([&] { return s.drowsy(); }));  // spun out, asleep
  CHECK_FALSE(s.wanted());
  Task t;
  t.node = 7;
  CHECK_FALSE(s.offer(t));  // nobody asks: kept
  CHECK(s.offer(t, true));  // to the sleeper, roused
  CHECK_FALSE(s.drowsy());
  REQUIRE(eventually([&] { return s.drowsy(); }));  // taken, fired, hungry again, asleep again
  Task none;
  CHECK_FALSE(s.take(none, 0));  // the last busy worker: the run is over, and the sleeper's take ends too
  thief.join();
  CHECK(takes == 1);
  CHECK(got.node == 7);
  CHECK(s.handed() == 1);
}
