// The search's threads change nothing it reports: with 2 and 3 threads, the
// counters, outcomes (path counts and witnesses included) and races (witnesses
// included) are those of one thread, under every reduction. Each thread count
// merges into its own number of shards of the visited store (one per thread,
// a power of two: 3 threads 4 shards, 9 threads 16), so this checks the
// sharded merge and the order new states are queued in too.
#include <doctest/doctest.h>

#include "explorer/explore.hpp"
#include "explorer/team.hpp"
#include "models/generate/families.hpp"
#include "models/generate/random_graph.hpp"
#include "support/graphs.hpp"
#include "support/sanitizers.hpp"

#include <array>
#include <atomic>
#include <chrono>
#include <span>
#include <thread>
#include <vector>

using namespace tfsem;
using explorer::Por;

namespace {

// Under AddressSanitizer, ten times slower, the random graphs' case checks a
// tenth of them; the plain build (CI's) checks all of them.
constexpr std::uint64_t kRandomShare = test::kAddressSanitizer ? 10 : 1;

explorer::Result run(const Semantics& sem, Por por, unsigned threads, std::uint64_t max_states = UINT64_MAX) {
  explorer::ExploreOptions o;
  o.por = por;
  o.threads = threads;
  o.limits.max_states = max_states;
  return explorer::explore(sem, o);
}

void check_same(const Semantics& sem, const explorer::Result& a, const explorer::Result& b) {
  CHECK(a.complete == b.complete);
  CHECK(a.stopped_by == b.stopped_by);
  const auto& x = a.counters;
  const auto& y = b.counters;
  CHECK(x.states_stored == y.states_stored);
  CHECK(x.states_matched == y.states_matched);
  CHECK(x.transitions == y.transitions);
  CHECK(x.terminal_states == y.terminal_states);
  CHECK(x.behaviours == y.behaviours);
  CHECK(x.transitions_pruned == y.transitions_pruned);
  CHECK(x.firings == y.firings);
  REQUIRE(a.outcomes.size() == b.outcomes.size());
  for (std::size_t i = 0; i < a.outcomes.size(); ++i) {
    CHECK(explorer::outcome_text(sem, a.outcomes[i]) == explorer::outcome_text(sem, b.outcomes[i]));
    CHECK(a.outcomes[i].paths == b.outcomes[i].paths);
    CHECK(schedule_to_string(sem, a.outcomes[i].witness) == schedule_to_string(sem, b.outcomes[i].witness));
  }
  REQUIRE(a.races.size() == b.races.size());
  for (std::size_t i = 0; i < a.races.size(); ++i) {
    CHECK(a.races[i].first == b.races[i].first);
    CHECK(a.races[i].second == b.races[i].second);
    CHECK(a.races[i].harmful == b.races[i].harmful);
    CHECK(schedule_to_string(sem, a.races[i].first_then_second) == schedule_to_string(sem, b.races[i].first_then_second));
  }
}

void check_threads(const std::shared_ptr<const Program>& program, std::span<const Por> pors = explorer::kAllPor) {
  const Semantics sem(program);
  CAPTURE(program->name());
  for (auto por : pors) {
    CAPTURE(explorer::por_name(por));
    const auto one = run(sem, por, 1);
    for (unsigned threads : {2U, 3U}) check_same(sem, one, run(sem, por, threads));
  }
}

}  // namespace

TEST_CASE("every shipped model") {
  const Por reduced[] = {Por::stubborn, Por::rf};  // none: the same search code, on far more states
  for (const auto& p : test::shipped_models()) check_threads(p, reduced);
}

TEST_CASE("benchmark families; lost-update-6 has thousands of states per level") {
  for (const auto& family : generate::families())
    for (int n = 1; n <= 4; ++n) check_threads(Program::build(generate::family_graph(family.name, n)));
  const Por reduced[] = {Por::stubborn, Por::rf};
  check_threads(Program::build(generate::family_graph("lost-update", 6)), reduced);
}

TEST_CASE("sixteen shards: a level's states are queued in the order one shard gives them") {
  const auto program = Program::build(generate::family_graph("lost-update", 6));
  const Semantics sem(program);
  check_same(sem, run(sem, Por::rf, 1), run(sem, Por::rf, 9));
}

TEST_CASE("loops: threads meet new contexts at once (the codec adds their blocks)") {
  // Every interleaving of a random graph with conditionals and a loop: tens of
  // thousands of states, several chunks per level, contexts met concurrently.
  for (std::uint64_t seed : {15U, 56U})
    check_threads(Program::build(generate::random_graph(seed, generate::kRandomControl)), std::array{Por::none});
}

TEST_CASE("a search stopped by --max-states in the middle of a level stops at the same state") {
  const auto program = Program::build(generate::family_graph("lost-update", 6));
  const Semantics sem(program);
  const auto one = run(sem, Por::rf, 1, 20'000);
  REQUIRE_FALSE(one.complete);
  for (unsigned threads : {2U, 3U}) check_same(sem, one, run(sem, Por::rf, threads, 20'000));
}

TEST_CASE("a search stopped by a flag set from another thread (an interrupt) stops while its threads expand") {
  const Semantics sem(Program::build(generate::family_graph("lost-update", 7)));
  std::atomic<bool> stop{false};
  StopToken token;
  token.watch(&stop);
  explorer::ExploreOptions o;
  o.por = Por::rf;
  o.threads = 2;
  o.limits.stop = &token;
  std::thread interrupt([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    stop = true;
  });
  const auto r = explorer::explore(sem, o);
  interrupt.join();
  CHECK_FALSE(r.complete);
  CHECK(r.stopped_by == "interrupt");
  CHECK(r.counters.states_stored < 684'284);  // all of lost-update-7's
}

TEST_CASE("100 seeded random graphs") {
  const generate::RandomGraphOptions larger{.max_variables = 3, .max_accesses = 8, .max_functions = 4};
  for (std::uint64_t seed = 1; seed <= 100 / kRandomShare; ++seed) {
    CAPTURE(seed);
    check_threads(Program::build(generate::random_graph(seed, larger)));
  }
}

TEST_CASE("a team runs each job once on every thread, and a job's writes are seen when it returns") {
  for (const unsigned size : {1U, 2U, 3U}) {
    explorer::Team team(size);
    CHECK(team.size() == size);
    std::vector<std::uint64_t> sums(size, 0);  // each thread writes its own: plain memory
    std::atomic<unsigned> calls{0};
    for (std::uint64_t job = 1; job <= 2000; ++job) {
      team.run([&](unsigned t) {
        if (job % 100 == 0 && t == size - 1) std::this_thread::sleep_for(std::chrono::milliseconds(1));  // the caller falls asleep
        sums[t] += job;
        calls.fetch_add(1, std::memory_order_relaxed);
      });
      if (job % 500 == 0) std::this_thread::sleep_for(std::chrono::milliseconds(2));  // the helpers fall asleep
    }
    CHECK(calls.load() == 2000 * size);
    for (unsigned t = 0; t < size; ++t) CHECK(sums[t] == 2000 * 2001 / 2);
  }
}
