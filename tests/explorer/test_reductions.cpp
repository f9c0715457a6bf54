// Every reduction against the full search (--por=none, the oracle): the same
// outcomes (violations included) and the same races (of commuting updates,
// S-COMMUTE, some of the full search's benign ones), on every shipped model,
// on the benchmark families, on 1,000 seeded random graphs, on 1,000 with
// conditionals and loops and on 20 with a recursive function; witnesses replay.
#include <doctest/doctest.h>

#include "explorer/explore.hpp"
#include "semantics/concurrent.hpp"
#include "semantics/dependence.hpp"
#include "semantics/prune.hpp"
#include "models/generate/families.hpp"
#include "models/generate/random_graph.hpp"
#include "support/graphs.hpp"
#include "support/sanitizers.hpp"

#include <algorithm>
#include <set>
#include <tuple>

using namespace tfsem;
using explorer::Por;

namespace {

// Under AddressSanitizer, ten times slower, each sweep checks a twentieth of
// its graphs and the models whose full search stores more than 100,000 states
// are left out; the plain build (CI's) checks all of them. From so few
// graphs a sweep may leave out up to twice as many as it checks (kLeftOutSlack);
// the unsanitized build holds every sweep to fewer than it checks.
constexpr int kSweepShare = test::kAddressSanitizer ? 20 : 1;
constexpr int kLeftOutSlack = test::kAddressSanitizer ? 2 : 1;
constexpr std::uint64_t kModelCap = test::kAddressSanitizer ? 100'000 : 50'000'000;

explorer::Result run(const Semantics& sem, Por por, std::uint64_t max_states = 50'000'000) {
  explorer::ExploreOptions o;
  o.por = por;
  o.limits.max_states = max_states;
  return explorer::explore(sem, o);
}

std::set<std::string> outcome_set(const Semantics& sem, const explorer::Result& r) {
  std::set<std::string> out;
  for (const auto& o : r.outcomes) out.insert(explorer::outcome_text(sem, o));
  return out;
}

using RaceSet = std::set<std::tuple<std::string, std::string, std::string, bool>>;

// Whether a race is between two commuting updates (S-COMMUTE): benign, and
// kept once by pair of nodes.
bool commuting_race(const Semantics& sem, const explorer::Race& race) {
  return sem.access(race.first.node).kind == Access::Kind::update &&
         sem.access(race.second.node).kind == Access::Kind::update && sem.dependence().commuting(race.var);
}

// The races, but those of two commuting updates; those by pair of nodes into `commuting`.
RaceSet race_set(const Semantics& sem, const explorer::Result& r, RaceSet& commuting) {
  RaceSet out;
  const auto& p = sem.program();
  for (const auto& race : r.races) {
    if (commuting_race(sem, race)) {
      CHECK_FALSE(race.harmful);
      commuting.emplace(p.node(race.first.node).name(), p.node(race.second.node).name(), p.variable(race.var).name, false);
      continue;
    }
    out.emplace(transition_to_string(p, sem.contexts(), race.first), transition_to_string(p, sem.contexts(), race.second),
                p.variable(race.var).name, race.harmful);
  }
  return out;
}

// The same races, but that a reduction may see two commuting updates enabled
// together at fewer states than the full search, so it may find fewer of
// their benign races (never a harmful one: they are independent).
void same_races(const Semantics& sem, const explorer::Result& reduced, const explorer::Result& full) {
  RaceSet reduced_commuting, full_commuting;
  CHECK(race_set(sem, reduced, reduced_commuting) == race_set(sem, full, full_commuting));
  CHECK(std::includes(full_commuting.begin(), full_commuting.end(), reduced_commuting.begin(), reduced_commuting.end()));
}

State replayed(const Semantics& sem, const Schedule& schedule) {
  State s = sem.initial();
  REQUIRE_FALSE(replay(sem, s, schedule).has_value());
  return s;
}

void check_witnesses(const Semantics& sem, const explorer::Result& r) {
  for (const auto& o : r.outcomes) {
    const auto end = replayed(sem, o.witness);
    CHECK(sem.terminal(end));
    CHECK(explorer::outcome_text(sem, explorer::outcome_of(sem, end)) == explorer::outcome_text(sem, o));
  }
  for (const auto& race : r.races) {
    replayed(sem, race.first_then_second);
    replayed(sem, race.second_then_first);
  }
}

// Whether some loop's condition depends on an unknown input: the loop
// unrolls under path conditions without end (S-PATH), and no search completes.
bool unbounded(const Semantics& sem) {
  const auto& frames = sem.program().frames();
  for (std::size_t f = 0; f < frames.size(); ++f)
    if (frames[f].kind == Frame::Kind::loop && !unknown_inputs(sem, FrameId(f)).empty()) return true;
  return false;
}

// Whether the full search finished within max_states (and the graph has no
// unbounded loop); then every reduction agrees with it.
bool check_reductions(const std::shared_ptr<const Program>& program, std::uint64_t max_states = 50'000'000) {
  const Semantics sem(program);
  const auto& p = sem.program();
  CAPTURE(p.name());
  if (unbounded(sem)) return false;
  const auto full = run(sem, Por::none, max_states);
  if (max_states < 50'000'000 && !full.complete) return false;
  REQUIRE(full.complete);
  for (auto por : {Por::stubborn, Por::rf}) {
    CAPTURE(explorer::por_name(por));
    const auto reduced = run(sem, por);
    REQUIRE(reduced.complete);
    CHECK(outcome_set(sem, reduced) == outcome_set(sem, full));
    same_races(sem, reduced, full);
    CHECK(reduced.counters.states_stored <= full.counters.states_stored);
    check_witnesses(sem, reduced);
  }
  return true;
}

// Random graph `seed` of the kind `options`, run in `copies` concurrent copies
// (S-CONCURRENT) when there are several.
std::shared_ptr<const Program> random_program(std::uint64_t seed, const generate::RandomGraphOptions& options, int copies) {
  auto program = Program::build(generate::random_graph(seed, options));
  if (copies == 1) return program;
  std::vector<ConcurrentRun> runs;
  for (int k = 0; k < copies; ++k) runs.push_back({"r" + std::to_string(k), program});
  return Program::build(concurrent_runs(runs));
}

// `wanted` random graphs of the kind `options` from first_seed on, each checked
// by check_reductions (in `copies` concurrent copies). Graphs whose full search
// stores more states than `cap` are left out, and counted (the full search is
// the cost here); returns how many.
int sweep(const generate::RandomGraphOptions& options, int wanted, std::uint64_t first_seed, std::uint64_t cap, int copies = 1) {
  int checked = 0, left_out = 0;
  for (auto seed = first_seed; checked < wanted; ++seed) {
    CAPTURE(seed);
    if (check_reductions(random_program(seed, options, copies), cap)) ++checked;
    else ++left_out;
  }
  MESSAGE(checked << " random graphs agree with the full search (" << left_out << " left out: over " << cap << " states)");
  return left_out;
}

}  // namespace

TEST_CASE("every shipped model: every reduction finds the outcomes and races of the full search") {
  int left_out = 0;
  for (const auto& p : test::shipped_models())
    if (!check_reductions(p, kModelCap)) ++left_out;
  MESSAGE(left_out << " models left out (over " << kModelCap << " states, or a loop on an unknown input)");
}

TEST_CASE("benchmark families, small sizes") {
  for (const auto& family : generate::families())
    for (int n = 1; n <= 4; ++n) check_reductions(Program::build(generate::family_graph(family.name, n)));
}

TEST_CASE("an access to a variable without a race fires at once (Dependence::race_free)") {
  // A training step run for its loss (its Saver pruned away): every read of
  // a weight precedes its update, through the gradient, so no variable races
  // and the step settles into one state.
  const auto step = prune(*Program::build(generate::family_graph("cnn-training", 2)), {"loss"});
  const Semantics sem(step);
  for (std::size_t x = 0; x < step->variables().size(); ++x) CHECK(sem.dependence().race_free(VarId(x)));
  for (auto por : {Por::stubborn, Por::rf}) {
    const auto r = run(sem, por);
    CHECK(r.counters.states_stored == 1);
    CHECK(r.outcomes.size() == 1);
    CHECK(r.races.empty());
  }
  // Lost update: the read after every write is ordered with each, but the
  // writes race, so it stays a move, where the racing orders meet.
  const auto lost = Program::build(generate::family_graph("lost-update", 2));
  const Semantics lu(lost);
  CHECK_FALSE(lu.dependence().race_free(VarId(std::uint32_t{0})));
  CHECK(check_reductions(lost));
}

TEST_CASE("a full search whose states seldom share a shape lets the shapes' cache go, and agrees") {
  // independent-chains-6 under none: 531,441 states, nearly every one of a
  // shape of its own, so the cache is let go after its trial (Reduction::frontier).
  check_reductions(Program::build(generate::family_graph("independent-chains", 6)), kModelCap);
}

TEST_CASE("1,000 seeded random graphs, and 100 larger ones") {
  for (std::uint64_t seed = 1; seed <= 1000 / kSweepShare; ++seed) {
    CAPTURE(seed);
    check_reductions(Program::build(generate::random_graph(seed)));
  }
  const generate::RandomGraphOptions larger{.max_variables = 3, .max_accesses = 8, .max_functions = 4};
  for (std::uint64_t seed = 1001; seed <= 1000 + 100 / kSweepShare; ++seed) {
    CAPTURE(seed);
    check_reductions(Program::build(generate::random_graph(seed, larger)));
  }
}

TEST_CASE("1,000 seeded random graphs with conditionals and loops") {
  CHECK(sweep(generate::kRandomControl, 1000 / kSweepShare, 1, 20'000) < kLeftOutSlack * 1000 / kSweepShare);
}

TEST_CASE("100 seeded random graphs with conditionals and loops nested") {
  auto nested = generate::kRandomControl;
  nested.max_nesting = 2;
  CHECK(sweep(nested, 100 / kSweepShare, 100'001, 100'000) < kLeftOutSlack * 100 / kSweepShare);
}

TEST_CASE("a loop's later iterations may need none of what its Enter needed (random-control 1111)") {
  // read0 feeds the loop's Enter for v, but every iteration after the first
  // takes v from read20 through the back edge, so the update downstream of
  // the loop's Exit can fire before read0: they race, and precedence
  // (Dependence::precedes) must not keep the update out of read0's stubborn set.
  const auto program = Program::build(generate::random_graph(1111, generate::kRandomControl));
  const Semantics sem(program);
  const auto& p = sem.program();
  CHECK_FALSE(sem.dependence().precedes(*p.find_node("read0"), *p.find_node("assign23")));
  CHECK(check_reductions(program));
}

TEST_CASE("200 seeded random graphs whose conditionals branch on unknown inputs") {
  CHECK(sweep(generate::kRandomSymbolic, 200 / kSweepShare, 1, 20'000) < kLeftOutSlack * 200 / kSweepShare);
}

TEST_CASE("1,000 small random graphs run concurrently in 2 copies, and 1,000 in 3 (S-CONCURRENT)") {
  const generate::RandomGraphOptions small{.max_variables = 1, .max_accesses = 2, .max_functions = 1};
  CHECK(sweep(small, 1000 / kSweepShare, 1, 20'000, 2) < kLeftOutSlack * 1000 / kSweepShare);
  CHECK(sweep(small, 1000 / kSweepShare, 1, 20'000, 3) < kLeftOutSlack * 1000 / kSweepShare);
}

TEST_CASE("20 seeded random graphs with a recursive function") {
  // One function, one variable, an access or two and a function outside it.
  // The unreduced search of two or three calls in flight explodes (the
  // reductions are what make these graphs tractable), so most are left out.
  const generate::RandomGraphOptions small{
      .max_variables = 1, .max_accesses = 1, .max_functions = 1, .max_constructs = 0, .max_library = 1};
  CHECK(sweep(small, 20 / kSweepShare, 1, 20'000) < 100);
}
