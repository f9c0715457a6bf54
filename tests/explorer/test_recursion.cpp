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
  std::uint32_t deepest = 0;
  for (auto enabled = sem.enabled_transitions(s); !enabled.empty(); enabled = sem.enabled_transitions(s)) {
    s = sem.fire(s, enabled.front()).front();
    deepest = std::max(deepest, sem.contexts()[enabled.front().context].calls);
  }
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
    read_races_root = read_races_root || (p.node(race.first.node).name() == "count/read" && p.node(race.second.node).name() == "add10") ||
                      (p.node(race.second.node).name() == "count/read" && p.node(race.first.node).name() == "add10");
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

namespace {

Transition transition(const Semantics& sem, const std::string& step) { return parse_schedule(sem, step).at(0).transition(); }

std::string text(const Semantics& sem, const State& s, const char* edge, ContextId c = kRootContext) {
  return content_to_string(sem.program(), s.at(*sem.program().find_edge(edge), c));
}

// fib(2)'s call from the root, and its body up to the Sub that computes n - 2.
const char* kFib2UpToSub2 =
    "call/call.n,fib/arg.n[fib:1],fib/arg.n.copy1[fib:1],fib/two_b.value[fib:1],fib/one.value[fib:1],"
    "fib/two.value[fib:1],fib/less[fib:1],fib/sw[fib:1],fib/copy_x[fib:1],fib/sub2[fib:1]";

}  // namespace

TEST_CASE("C-CALL: a Call puts its argument in the context of the call its site makes, and GO for its site's Returns") {
  const Semantics sem(Program::build(model_spec("fib", "n=2")));
  const auto& p = sem.program();
  const auto& ctx = sem.contexts();
  const auto fib = *p.find_frame("fib");
  auto s = test::run(sem, "call/call.n");
  const auto call1 = ctx.call(kRootContext, fib, 1);
  CHECK(context_to_string(p, ctx, call1) == "fib:1");
  CHECK(text(sem, s, "call/call.n.arg", call1) == "i32:2");
  CHECK(is_empty(s.at(*p.find_edge("call/call.n.arg"))));  // not in the caller's context
  CHECK(text(sem, s, "call/call.n/return.r") == "GO");      // the control edge to the site's Return, in the caller's
  CHECK(is_empty(s.at(*p.find_edge("n"))));
  CHECK(ctx[call1].calls == 1);
  // A call from inside a call: fib(2) calls fib(0) at site 3, one call deeper.
  s = test::run(sem, std::string(kFib2UpToSub2) + ",fib/f2/call.n[fib:1]");
  const auto call13 = ctx.call(call1, fib, 3);
  CHECK(context_to_string(p, ctx, call13) == "fib:1,fib:3");
  CHECK(text(sem, s, "fib/f2/call.n.arg", call13) == "i32:0");
  CHECK(text(sem, s, "fib/f2/call.n/return.r", call1) == "GO");
  CHECK(ctx[call13].calls == 2);
}

TEST_CASE("C-CALL-MERGE: in the call site k makes, a function's argument Merge waits for site k's Call alone") {
  const Semantics sem(Program::build(model_spec("fib", "n=2")));
  const auto& p = sem.program();
  const auto& ctx = sem.contexts();
  const auto fib = *p.find_frame("fib");
  // Site 3's call is made; site 2's (fib/f1) is not yet: only the Merge of the call at site 3 may fire.
  auto s = test::run(sem, std::string(kFib2UpToSub2) + ",fib/f2/call.n[fib:1]");
  CHECK(sem.enabled(s, transition(sem, "fib/arg.n[fib:1,fib:3]")));
  CHECK_FALSE(sem.enabled(s, transition(sem, "fib/arg.n[fib:1,fib:2]")));
  const auto next = sem.fire(s, transition(sem, "fib/arg.n[fib:1,fib:3]"));
  REQUIRE(next.size() == 1);  // one input it waits for: no choice between sites
  const auto call13 = ctx.call(ctx.call(kRootContext, fib, 1), fib, 3);
  CHECK(text(sem, next[0], "fib/arg.n.copy1.in", call13) == "i32:0");
  CHECK(is_empty(next[0].at(*p.find_edge("fib/f2/call.n.arg"), call13)));
  // Every Merge of every call fires with its site's argument: fib(2) = 1, nothing stuck.
  std::set<Transition> merges;
  for (auto enabled = sem.enabled_transitions(s); !enabled.empty(); enabled = sem.enabled_transitions(s)) {
    s = sem.fire(s, enabled.front()).front();
    if (enabled.front().node == *p.find_node("fib/arg.n")) merges.insert(enabled.front());
  }
  CHECK(sem.stuck(s).empty());
  CHECK(test::outputs_text(p, s) == "fib_n=i32:1");
  for (std::uint32_t site : {2U, 3U})
    CHECK(merges.contains({*p.find_node("fib/arg.n"), ctx.call(ctx.call(kRootContext, fib, 1), fib, site)}));
}

TEST_CASE("C-DEPTH: --max-iterations stops a search at a loop's iteration past it, naming the loop, as --max-depth a call") {
  const Semantics sem(test::program_file("models/thesis-figure-4-while.json"));
  const auto r = explore(sem, {.max_iterations = 3, .max_depth = 100});
  CHECK_FALSE(r.complete);
  CHECK(r.stopped_by == "max-iterations 3 in loop 'while'");
  const auto whole = explore(sem, {.max_iterations = 11, .max_depth = 100});  // iterations 0 to 10
  REQUIRE(whole.complete);
  REQUIRE(whole.outcomes.size() == 1);
  CHECK(explorer::outcome_text(sem, whole.outcomes[0]) == "i=i32:10");
  CHECK_FALSE(explore(sem, {.max_iterations = 10, .max_depth = 100}).complete);
  // A call exactly max_depth deep is made; one deeper stops the search.
  const Semantics fib(Program::build(model_spec("fib", "n=3")));
  CHECK(explore(fib, {.max_iterations = 100, .max_depth = 3}).complete);
  CHECK(explore(fib, {.max_iterations = 100, .max_depth = 2}).stopped_by == "max-depth 2 in function 'fib'");
}
