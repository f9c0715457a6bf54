// Recursion (thesis section 5): functions made static with Call and Return,
// their outcomes against hand-derived values, deadness ending a recursion,
// --max-depth, races between call instances, and the static transformation
// against the inline expansion. The reductions against the full search on
// the shipped recursive models are in test_reductions.
#include <doctest/doctest.h>

#include "explorer/explore.hpp"
#include "semantics/functions.hpp"
#include "support/graphs.hpp"

#include <set>

using namespace tfsem;

namespace {

ProgramSpec model_spec(const std::string& name, const std::string& feed = "") {
  auto spec = format::load_program_file(std::string(TFSEM_SOURCE_DIR) + "/models/" + name + ".json");
  if (!feed.empty()) format::apply_feed(spec, feed);
  return spec;
}

explorer::Result explore(const Semantics& sem, Bounds bounds = {}) {
  explorer::ExploreOptions o;
  o.limits.bounds = bounds;
  return explorer::explore(sem, o);
}

std::set<std::string> outcomes(const ProgramSpec& spec) {
  const Semantics sem(Program::build(spec));
  const auto r = explore(sem);
  REQUIRE(r.complete);
  std::set<std::string> out;
  for (const auto& o : r.outcomes) out.insert(explorer::outcome_text(sem, o));
  return out;
}

int fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }

}  // namespace

TEST_CASE("fib(n) by recursion gives fib(n), in one behaviour") {
  for (int n = 0; n <= 7; ++n) {
    CAPTURE(n);
    const Semantics sem(Program::build(model_spec("fib", "n=" + std::to_string(n))));
    const auto r = explore(sem);
    REQUIRE(r.complete);
    REQUIRE(r.outcomes.size() == 1);
    CHECK(content_to_string(sem.program(), r.outcomes[0].outputs.at(0).second) == "i32:" + std::to_string(fib(n)));
    CHECK(r.outcomes[0].stuck.empty());
  }
}

TEST_CASE("mutual recursion: is_even and is_odd call each other") {
  for (int n = 0; n <= 6; ++n) {
    CAPTURE(n);
    CHECK(outcomes(model_spec("even-odd", "n=" + std::to_string(n))) ==
          std::set<std::string>{std::string("even=bool:") + (n % 2 == 0 ? "true" : "false")});
  }
}

TEST_CASE("C-CALL-DEAD: the untaken branch's calls are not made, so the recursion ends") {
  // fib(1): the body runs once; its two recursive Calls get DEAD, create no
  // context, and their Returns output DEAD.
  const Semantics sem(Program::build(model_spec("fib", "n=1")));
  State s = sem.initial();
  for (auto enabled = sem.enabled_transitions(s); !enabled.empty(); enabled = sem.enabled_transitions(s))
    s = sem.fire(s, enabled.front()).front();
  std::uint32_t deepest = 0;
  for (const auto& t : s.fired) deepest = std::max(deepest, sem.contexts()[t.context].calls);
  CHECK(deepest == 1);
  CHECK(sem.stuck(s).empty());
  CHECK(test::outputs_text(sem.program(), s) == "fib_n=i32:1");
}

TEST_CASE("--max-depth stops a search at a call deeper than it, naming the function") {
  const Semantics sem(Program::build(model_spec("fib", "n=6")));
  const auto r = explore(sem, {.max_iterations = 100, .max_depth = 3});
  CHECK_FALSE(r.complete);
  CHECK(r.stopped_by == "max-depth 3 in function 'fib'");
  CHECK(explore(sem, {.max_iterations = 100, .max_depth = 6}).complete);
}

TEST_CASE("variables are shared by every call instance: their updates race") {
  const Semantics sem(Program::build(model_spec("recursive-increment-race")));
  const auto r = explore(sem);
  std::set<std::string> x;
  for (const auto& o : r.outcomes) x.insert(o.var_value[0].to_string());
  CHECK(x == std::set<std::string>{"i32:1", "i32:11"});
  const auto& p = sem.program();
  bool read_races_root = false;
  for (const auto& race : r.races)
    read_races_root = read_races_root || (p.node(race.first.node).name == "count/read" && p.node(race.second.node).name == "add10") ||
                      (p.node(race.second.node).name == "count/read" && p.node(race.first.node).name == "add10");
  CHECK(read_races_root);
}

TEST_CASE("the static transformation and the inline expansion agree where the expansion is deep enough") {
  for (int n = 0; n <= 5; ++n) {
    CAPTURE(n);
    const auto spec = model_spec("fib", "n=" + std::to_string(n));
    CHECK(outcomes(inline_calls(spec, n + 1)) == outcomes(spec));
  }
  // Too shallow: the deepest call is refused, and says so in its result.
  const auto refused = outcomes(inline_calls(model_spec("fib", "n=4"), 2));
  REQUIRE(refused.size() == 1);
  CHECK(refused.begin()->find("is deeper than --inline 2: refused") != std::string::npos);
  // The static graph is one of the semantics' own: transformed twice, the same.
  const auto once = make_static(model_spec("fib"));
  CHECK(Program::build(once)->hash() == Program::build(model_spec("fib"))->hash());
  CHECK(once.library.empty());
}
