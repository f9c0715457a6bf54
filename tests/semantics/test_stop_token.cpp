// The stop token every phase of a command polls (support/stop_token.hpp), and
// the memory bounds of the machine (support/resident_memory.hpp).
#include <doctest/doctest.h>

#include "support/resident_memory.hpp"
#include "support/sanitizers.hpp"
#include "support/stop_token.hpp"

#include <sys/resource.h>

#include <new>
#include <thread>
#include <vector>

using namespace tfsem;

TEST_CASE("a token without limits never stops on its own; stop() keeps the first reason") {
  StopToken token;
  CHECK_FALSE(token.stopped());
  CHECK_NOTHROW(token.check());
  token.stop(StopReason::timeout);
  token.stop(StopReason::interrupt);
  CHECK(token.stopped());
  CHECK(token.reason() == StopReason::timeout);
  CHECK(token.reason_text() == "timeout");
}

TEST_CASE("the interrupt flag, the deadline and the resident memory each stop the work, with their reason") {
  std::atomic<bool> flag{false};
  StopToken interrupted;
  interrupted.watch(&flag);
  CHECK_FALSE(interrupted.stopped());
  flag = true;
  CHECK(interrupted.stopped());
  CHECK(interrupted.reason_text() == "interrupt");

  StopToken late;
  late.set_deadline(StopToken::Clock::now() + std::chrono::milliseconds(20));
  CHECK_FALSE(late.stopped());
  CHECK(*late.seconds_left() > 0);
  std::this_thread::sleep_for(std::chrono::milliseconds(40));
  CHECK(late.stopped());
  CHECK(late.reason() == StopReason::timeout);

  StopToken small;
  small.set_max_memory(1 << 20);  // below any process's resident set
  CHECK(small.stopped());         // the first poll reads it
  CHECK(small.reason_text() == "max-memory 1 MiB");
}

TEST_CASE("check() throws Stopped naming the reason and the phase, or calls the end handler first") {
  StopToken token;
  token.enter("during import");
  token.stop(StopReason::interrupt);
  try {
    token.check();
    FAIL("no Stopped");
  } catch (const Stopped& e) {
    CHECK(e.reason() == StopReason::interrupt);
    CHECK(std::string(e.what()) == "interrupt");
    CHECK(e.phase() == "during import");
  }
  static int ended = 0;
  token.end_on_stop([](const Stopped&) { ++ended; });
  CHECK_THROWS_AS(token.check(), Stopped);  // a handler that returns: thrown all the same
  CHECK(ended == 1);
}

TEST_CASE("out of memory frees the reserve and stops the work") {
  StopToken token;
  token.reserve(1 << 20);
  token.out_of_memory();
  CHECK(token.reason() == StopReason::out_of_memory);
  CHECK(token.reason_text() == "out of memory");
}

TEST_CASE("the report is written whatever stopped the work before, with a grace before the deadline") {
  std::atomic<bool> flag{true};
  StopToken token;
  token.watch(&flag);
  token.set_deadline(StopToken::Clock::now());
  CHECK(token.stopped());
  token.begin_report(std::chrono::milliseconds(200));
  CHECK_FALSE(token.stopped());  // the interrupt seen is given up, the deadline moved
  CHECK(*token.seconds_left() > 0.1);
  StopToken memory;
  memory.set_max_memory(1 << 20);
  CHECK(memory.stopped());
  memory.begin_report(std::chrono::milliseconds(200));
  CHECK_FALSE(memory.stopped());
}

TEST_CASE("a poll looks at the token every n-th step") {
  StopToken token;
  token.stop(StopReason::timeout);
  StopPoll poll(&token, 4);
  CHECK_FALSE(poll.tick());
  CHECK_FALSE(poll.tick());
  CHECK_FALSE(poll.tick());
  CHECK(poll.tick());
  CHECK_THROWS_AS(poll.check(), Stopped);
  StopPoll none(nullptr, 1);
  CHECK_FALSE(none.tick());
  CHECK_NOTHROW(none.check());
}

TEST_CASE("the machine's memory bound: the smallest of physical memory and the limits, the default an eighth below") {
  const auto bound = machine_memory_bound();
  REQUIRE(bound);  // Linux says how much physical memory there is
  CHECK(bound->bytes > 0);
  const auto limit = default_max_memory();
  CHECK(limit.bytes == bound->bytes - bound->bytes / 8);
  CHECK(limit.source == bound->source + ", less an eighth");
  CHECK(resident_set_bytes().value_or(0) > 0);
  // The anonymous part: a fresh block written grows it, and it stays within the resident set.
  const auto before = anonymous_resident_bytes().value_or(0);
  std::vector<char> fresh(std::size_t{64} << 20, 1);
  asm volatile("" : : "r"(fresh.data()) : "memory");  // its pages are written, not elided
  const auto after = anonymous_resident_bytes().value_or(0);
  CHECK(after >= before + fresh.size() / 2);
  CHECK(after <= resident_set_bytes().value_or(0));
}

TEST_CASE("RLIMIT_AS bounds the memory when it is the smallest") {
  if (test::kSanitized) return;  // the sanitizers' shadow takes more address space than any such limit
  struct rlimit old {};
  REQUIRE(getrlimit(RLIMIT_AS, &old) == 0);
  const auto bound = machine_memory_bound();
  REQUIRE(bound);
  const rlim_t want = 8ULL << 30;  // far above this test's needs
  if (want >= bound->bytes || (old.rlim_max != RLIM_INFINITY && old.rlim_max < want)) return;
  struct rlimit lower = old;
  lower.rlim_cur = want;
  REQUIRE(setrlimit(RLIMIT_AS, &lower) == 0);
  const auto limited = machine_memory_bound();
  setrlimit(RLIMIT_AS, &old);
  REQUIRE(limited);
  CHECK(limited->bytes == want);
  CHECK(limited->source == "RLIMIT_AS");
}
