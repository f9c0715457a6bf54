// The distributed search (explorer/distributed.hpp) finds what one process
// finds: run under mpirun with 1, 2 and 3 ranks (tests/explorer/CMakeLists.txt),
// every rank searches each graph, and rank 0 compares the result with the
// one-process search: the counters, the outcomes with their path counts, the
// verdict, the races with harmful/benign; and it replays every witness. One
// MPI job runs every graph, so that CI starts three jobs, not hundreds.
#include <doctest/doctest.h>

#include "explorer/distributed.hpp"
#include "explorer/explore.hpp"
#include "models/generate/families.hpp"
#include "models/generate/random_graph.hpp"
#include "support/graphs.hpp"

#include <filesystem>
#include <random>
#include <set>
#include <tuple>

using namespace tfsem;
using explorer::Por;

namespace {

// The state a schedule leads to, every step checked enabled.
State replay(const Semantics& sem, const Schedule& schedule) {
  auto s = sem.initial();
  for (const auto& step : schedule) {
    REQUIRE(sem.enabled(s, step.transition()));
    auto next = sem.fire(s, step.transition());
    REQUIRE(step.choice < next.size());
    s = std::move(next[step.choice]);
  }
  return s;
}

using RaceKey = std::tuple<std::string, std::string, bool>;

std::set<RaceKey> races(const Semantics& sem, const explorer::Result& r) {
  std::set<RaceKey> out;
  for (const auto& race : r.races) {
    auto a = transition_to_string(sem.program(), sem.contexts(), race.first);
    auto b = transition_to_string(sem.program(), sem.contexts(), race.second);
    if (b < a) std::swap(a, b);
    out.emplace(a, b, race.harmful);
  }
  return out;
}

std::set<std::pair<std::string, explorer::PathCount>> outcomes(const Semantics& sem, const explorer::Result& r) {
  std::set<std::pair<std::string, explorer::PathCount>> out;
  for (const auto& o : r.outcomes) out.emplace(explorer::outcome_text(sem, o), o.paths);
  return out;
}

// Every rank calls it; rank 0 checks.
void check_distributed(const std::shared_ptr<const Program>& program, std::initializer_list<Por> pors,
                       std::size_t round = explorer::distributed::kRound) {
  const Semantics sem(program);
  for (auto por : pors) {
    explorer::ExploreOptions o;
    o.por = por;
    const auto d = explorer::distributed::explore(sem, o, nullptr, round);
    if (explorer::distributed::rank() != 0) continue;
    CAPTURE(program->name());
    CAPTURE(explorer::por_name(por));
    const auto one = explorer::explore(sem, o);
    const auto& r = d.result;
    CHECK(r.complete == one.complete);
    CHECK(r.stopped_by == one.stopped_by);
    CHECK(r.deterministic() == one.deterministic());
    CHECK(r.violated() == one.violated());
    CHECK(r.counters.states_stored == one.counters.states_stored);
    CHECK(r.counters.states_matched == one.counters.states_matched);
    CHECK(r.counters.transitions == one.counters.transitions);
    CHECK(r.counters.terminal_states == one.counters.terminal_states);
    CHECK(r.counters.behaviours == one.counters.behaviours);
    CHECK(r.counters.transitions_pruned == one.counters.transitions_pruned);
    CHECK(r.counters.firings == one.counters.firings);
    CHECK(outcomes(sem, r) == outcomes(sem, one));
    CHECK(races(sem, r) == races(sem, one));
    for (const auto& outcome : r.outcomes)
      CHECK(explorer::outcome_text(sem, explorer::outcome_of(sem, replay(sem, outcome.witness))) ==
            explorer::outcome_text(sem, outcome));
    for (const auto& race : r.races) {
      replay(sem, race.first_then_second);
      replay(sem, race.second_then_first);
    }
    std::uint64_t states = 0;
    REQUIRE(d.ranks.size() == static_cast<std::size_t>(explorer::distributed::ranks()));
    for (const auto& rank : d.ranks) states += rank.states;
    CHECK(states == r.counters.states_stored);
  }
}

// Whether the one-process search of program under por stores at most 5000
// states (every rank decides alike: it is the same everywhere).
bool at_most_5000_states(const std::shared_ptr<const Program>& program, Por por) {
  explorer::ExploreOptions o;
  o.por = por;
  o.limits.max_states = 5'000;
  return explorer::explore(Semantics(program), o).complete;
}

}  // namespace

TEST_CASE("every shipped model; every interleaving (--por none) of those with at most 5000 states") {
  for (const auto& p : test::shipped_models()) {
    if (at_most_5000_states(p, Por::none)) check_distributed(p, {Por::none});
    check_distributed(p, {Por::stubborn, Por::rf});
  }
}

TEST_CASE("benchmark families") {
  for (const auto& family : generate::families())
    for (int n = 1; n <= 3; ++n) check_distributed(Program::build(generate::family_graph(family.name, n)), {Por::rf});
}

TEST_CASE("100 random graphs: 50 of tfsem generate random, 50 of random-control") {
  for (std::uint64_t seed = 1; seed <= 50; ++seed) {
    CAPTURE(seed);
    check_distributed(Program::build(generate::random_graph(seed)), {Por::rf});
    check_distributed(Program::build(generate::random_graph(seed, generate::kRandomControl)), {Por::rf});
  }
}

// Path conditions and call stacks on the wire (a channel defines each
// once): 20 seeds of each, under `rf` and `none`, those whose search stores
// at most 5000 states.
TEST_CASE("random-symbolic and random-recursive graphs") {
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    CAPTURE(seed);
    for (const auto& options : {generate::kRandomSymbolic, generate::kRandomRecursive}) {
      const auto program = Program::build(generate::random_graph(seed, options));
      for (auto por : {Por::rf, Por::none})
        if (at_most_5000_states(program, por)) check_distributed(program, {por});
    }
  }
}

// Rounds of 8 states: on any level wider than that, each round's exchange
// runs beside the next round's expansion, and the ranks pause together only
// at the level's end.
TEST_CASE("rounds of 8 states: exchanges that overlap expansion") {
  constexpr std::size_t kSmall = 8;
  for (const auto& p : test::shipped_models()) {
    if (at_most_5000_states(p, Por::none)) check_distributed(p, {Por::none}, kSmall);
    check_distributed(p, {Por::stubborn, Por::rf}, kSmall);
  }
  for (const auto& family : generate::families())
    for (int n = 2; n <= 4; ++n) check_distributed(Program::build(generate::family_graph(family.name, n)), {Por::rf}, kSmall);
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    CAPTURE(seed);
    for (const auto& options : {generate::kRandomControl, generate::kRandomSymbolic, generate::kRandomRecursive}) {
      const auto program = Program::build(generate::random_graph(seed, options));
      if (at_most_5000_states(program, Por::rf)) check_distributed(program, {Por::rf}, kSmall);
    }
  }
}

// Rounds of 8 states and a checkpoint due at every round: the ranks pause
// for one every other round. A search stopped by --max-states, resumed from
// its last checkpoint on the same ranks, stopped again a few states later
// (a checkpoint is due as soon as it resumes, in a level's first round),
// then again, and resumed, reports what the uninterrupted search reports,
// witnesses included (a state's first arrival is the same wherever the
// ranks pause, and whether a resumed level overlaps or not).
TEST_CASE("checkpoints between overlapped rounds, resumed: the uninterrupted report") {
  constexpr std::size_t kSmall = 8;
  const Semantics sem(Program::build(generate::family_graph("lost-update", 5)));
  explorer::ExploreOptions o;
  const auto whole = explorer::distributed::explore(sem, o, nullptr, kSmall).result;
  const auto tag = explorer::distributed::agree(static_cast<int>(std::random_device{}() & 0x7fffffff));  // rank 0's
  const auto dir = std::filesystem::temp_directory_path() / ("tfsem-test-distributed-" + std::to_string(tag));
  explorer::Checkpoints checkpoints{dir.string(), 0.0, false, false, "test"};
  for (const std::uint64_t max : {1'500, 1'520, 3'000}) {
    o.limits.max_states = max;
    CHECK_FALSE(explorer::distributed::explore(sem, o, &checkpoints, kSmall).result.complete);
    checkpoints.resume = checkpoints.required = true;
  }
  o.limits = {};
  const auto resumed = explorer::distributed::explore(sem, o, &checkpoints, kSmall).result;
  if (explorer::distributed::rank() != 0) return;
  std::filesystem::remove_all(dir);
  CHECK(resumed.complete);
  CHECK(resumed.counters.states_stored == whole.counters.states_stored);
  CHECK(resumed.counters.transitions == whole.counters.transitions);
  CHECK(resumed.counters.firings == whole.counters.firings);
  REQUIRE(resumed.outcomes.size() == whole.outcomes.size());
  for (std::size_t k = 0; k < whole.outcomes.size(); ++k) {
    CHECK(resumed.outcomes[k].paths == whole.outcomes[k].paths);
    CHECK(resumed.outcomes[k].witness == whole.outcomes[k].witness);
  }
  REQUIRE(resumed.races.size() == whole.races.size());
  for (std::size_t k = 0; k < whole.races.size(); ++k) {
    CHECK(resumed.races[k].harmful == whole.races[k].harmful);
    CHECK(resumed.races[k].first_then_second == whole.races[k].first_then_second);
    CHECK(resumed.races[k].second_then_first == whole.races[k].second_then_first);
  }
}

TEST_CASE("limits stop every rank: INCOMPLETE, with the reason") {
  const Semantics sem(Program::build(generate::family_graph("lost-update", 4)));
  explorer::ExploreOptions o;
  o.limits.max_states = 50;
  for (const std::size_t round : {explorer::distributed::kRound, std::size_t{4}}) {
    const auto d = explorer::distributed::explore(sem, o, nullptr, round);
    CHECK_FALSE(d.result.complete);
    if (explorer::distributed::rank() == 0) CHECK(d.result.stopped_by == "max-states 50");
  }
}
