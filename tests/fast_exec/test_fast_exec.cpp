// The fast executor against the reference: sessions, forced schedules, every
// model and 1,000 random graphs conform, and the unsafe mode is caught.
#include <doctest/doctest.h>

#include "conformance/conform.hpp"
#include "models/generate/random_graph.hpp"
#include "models/generate/spec_builder.hpp"
#include "semantics/diagnostic.hpp"
#include "support/graphs.hpp"
#include "support/sanitizers.hpp"

#include <algorithm>
#include <map>
#include <optional>

using namespace tfsem;

namespace {

// Under a sanitizer (.ci/sanitize, CI's TSan stage: several times slower), the
// fuzzed-graph cases run a fifth of their graphs, and of so few one more may
// get no verdict (kFuzzSlack); the plain build runs them all, held to the full
// count.
constexpr std::uint64_t kFuzzShare = test::kSanitized ? 5 : 1;
constexpr std::uint64_t kFuzzSlack = test::kSanitized ? 1 : 0;

std::string output_text(const Program& p, const fast_exec::RunResult& r) { return content_to_string(p, r.fetched.at(0)); }

// Each of a run's fetches by name, as text.
std::map<std::string, std::string> fetched_text(const Program& p, const fast_exec::Executor& s, const fast_exec::RunResult& r) {
  std::map<std::string, std::string> out;
  for (const auto& [fetch, content] : s.outputs(r)) out.emplace(fetch, content_to_string(p, content));
  return out;
}

// The program with input edge `edge` fed v.
std::shared_ptr<const Program> feed(const std::shared_ptr<const Program>& p, const std::string& edge, const Tensor& v) {
  auto spec = p->spec();
  for (auto& e : spec.edges)
    if (e.id == edge) e.value = v;
  return Program::build(std::move(spec));
}
std::shared_ptr<const Program> feed(const std::shared_ptr<const Program>& p, const std::string& edge, std::int32_t v) {
  return feed(p, edge, Tensor::scalar(v));
}

fast_exec::ExecOptions exec_options(fast_exec::Calls calls, int threads, std::optional<std::uint64_t> perturb = {}) {
  fast_exec::ExecOptions o;
  o.calls = calls;
  o.threads = threads;
  o.perturb_seed = perturb;
  return o;
}

conform::Options stressed(std::size_t runs) {
  conform::Options o;
  o.runs = runs;
  o.exec.threads = 2;
  o.exec.perturb_seed = 42;
  return o;
}

}  // namespace

TEST_CASE("variables persist across the runs of a session, on one thread and on several") {
  for (int threads : {1, 2, 4}) {
    CAPTURE(threads);
    const auto p = test::program_file("models/counter.json");
    fast_exec::ExecOptions o;
    o.threads = threads;
    fast_exec::Executor executor(p, o);
    for (int k = 1; k <= 3; ++k) CHECK(output_text(*p, executor.run()) == "i32:" + std::to_string(k));
    executor.reset();
    CHECK(output_text(*p, executor.run()) == "i32:1");
  }
}

TEST_CASE("a result reused across runs holds each run's fetches, whatever it held before") {
  for (int threads : {1, 2}) {
    CAPTURE(threads);
    fast_exec::ExecOptions o;
    o.threads = threads;
    const auto counter = test::program_file("models/counter.json");
    fast_exec::Executor executor(counter, o);
    fast_exec::RunResult r;
    for (int k = 1; k <= 3; ++k) {
      executor.run(r);
      CHECK(output_text(*counter, r) == "i32:" + std::to_string(k));
    }
    // A stuck run (S-STUCK) into a result full of another run's tensors.
    const auto stuck = test::program_file("models/call-missing-argument.json");
    fast_exec::Executor s(stuck, o);
    const auto fresh = s.run();
    REQUIRE(fresh.stuck);
    fast_exec::RunResult reused;
    reused.fetched.assign(fresh.fetched.size(), Tensor::scalar(std::int32_t{7}));
    s.run(reused);
    CHECK(reused.stuck);
    CHECK(reused.fetched == fresh.fetched);
    executor.run(reused);  // another executor's result, of another size
    CHECK_FALSE(reused.stuck);
    CHECK(output_text(*counter, reused) == "i32:4");
    CHECK(reused.fetched.size() == 1);
  }
}

TEST_CASE("a forced schedule reproduces a witness; a step that is not ready is refused; a prefix fetches nothing") {
  const auto p = test::program_file("models/first-example-no-control.json");
  const Semantics sem(p);
  fast_exec::Executor executor(p);
  CHECK(output_text(*p, executor.run_schedule(parse_schedule(sem, "var_bottom,read,var_top,write"))) == "A");
  CHECK(output_text(*p, executor.run_schedule(parse_schedule(sem, "var_top,write,var_bottom,read"))) == "B");
  CHECK_THROWS_AS(executor.run_schedule(parse_schedule(sem, "read")), InputError);
  // A schedule refused after a step: what that step logged is not the next run's.
  fast_exec::ExecOptions o;
  o.record_accesses = true;
  fast_exec::Executor logged(p, o), clean(p, o);
  CHECK_THROWS_AS(logged.run_schedule(parse_schedule(sem, "var_bottom,read,read")), InputError);
  logged.reset();
  const auto after = logged.run();
  const auto expected = clean.run();
  REQUIRE(after.accesses.size() == expected.accesses.size());
  for (std::size_t x = 0; x < after.accesses.size(); ++x) CHECK(after.accesses[x].size() == expected.accesses[x].size());
  const auto prefix = executor.run_schedule(parse_schedule(sem, "var_bottom"));  // the read never fired
  CHECK(prefix.stuck);
  CHECK(output_text(*p, prefix) == "EMPTY");
}

TEST_CASE("the access log records each variable's order when asked, and it replays") {
  const auto p = test::program_file("models/figure-4-lost-update.json");
  auto exec = stressed(1).exec;
  exec.record_accesses = true;
  fast_exec::Executor executor(p, exec);
  const auto r = executor.run();
  REQUIRE(r.accesses.size() == 1);
  CHECK(r.accesses[0].size() == 6);  // write, read_1, read_2, write_1, write_2, read
  exec.record_accesses = false;  // the default: nothing logged
  fast_exec::Executor quiet(p, exec);
  const auto q = quiet.run();
  REQUIRE(q.accesses.size() == 1);
  CHECK(q.accesses[0].empty());
}

TEST_CASE("every model of the section 3 core conforms, with perturbed schedules on two threads") {
  for (const auto& p : test::core_models()) {
    CAPTURE(p->name());
    const auto report = conform::conform(p, stressed(30));
    CHECK(report.conforms());
    CHECK(report.replayed == 30);
  }
}

TEST_CASE("every model with control flow or recursion conforms, with perturbed schedules on two threads") {
  for (const auto calls : {fast_exec::Calls::static_, fast_exec::Calls::dynamic})
    for (const auto& p : test::executable_models()) {
      if (!p->has_control_flow()) continue;
      CAPTURE(p->name());
      auto o = stressed(5);
      o.exec.calls = calls;
      const auto report = conform::conform(p, o);
      CHECK(report.complete());
      CHECK(report.conforms());
      CHECK(report.replayed == 5);
    }
}

TEST_CASE("the thesis's programs recurse and conform, static and dynamic") {
  struct Fed {
    const char* model;
    std::vector<std::pair<const char*, std::int32_t>> feeds;
    const char* result;
  };
  const std::vector<Fed> cases = {{"models/thesis-fib.json", {{"n", 4}}, "i32:5"},
                                  {"models/thesis-ackermann.json", {{"m", 1}, {"n", 1}}, "i32:3"},
                                  {"models/thesis-takeuchi.json", {{"x", 2}, {"y", 1}, {"z", 0}}, "i32:1"},
                                  {"models/thesis-primes.json", {{"x", 3}}, "i32:5"}};
  for (const auto& c : cases) {
    CAPTURE(c.model);
    auto p = test::program_file(c.model);
    for (const auto& [edge, v] : c.feeds) p = feed(p, edge, v);
    for (const auto calls : {fast_exec::Calls::static_, fast_exec::Calls::dynamic}) {
      auto o = stressed(3);
      o.exec.calls = calls;
      const auto report = conform::conform(p, o);
      CHECK(report.conforms());
      REQUIRE(report.reference.outcomes.size() == 1);
      CHECK(explorer::outcome_text(*report.semantics, report.reference.outcomes[0]) == std::string("result=") + c.result);
    }
  }
}

TEST_CASE("a call's instance is given back when it completes: Ackermann holds about as many as it recurses deep") {
  // ack(3, 3) = 61 makes 2,432 calls, about 120 deep. With one thread, a call's
  // remaining tasks, its DEAD branch included, run before its caller's, so its
  // instance is given back when it completes. A call whose DEAD branch waited
  // under the rest of the run would keep its instance: about 2,500 at once
  // here, and tens of thousands for ack(3, 5).
  const auto p = feed(feed(test::program_file("models/thesis-ackermann.json"), "m", 3), "n", 3);
  const auto& frames = p->frames();
  const auto ack = std::find_if(frames.begin(), frames.end(), [](const Frame& f) { return f.name == "ack"; });
  REQUIRE(ack != frames.end());
  fast_exec::ExecOptions o;
  o.threads = 1;
  fast_exec::Executor s(p, o);
  CHECK(output_text(*p, s.run()) == "i32:61");
  CHECK(s.instances_held(FrameId(static_cast<std::size_t>(ack - frames.begin()))) <= 400);
}

TEST_CASE("two threads share a recursion by work stealing: whole calls handed over, each worker depth first") {
  // Runs p on two threads, static and dynamic, until `enough` tasks were
  // handed over (on a busy host the second thread may start late): each
  // run's result is `expected`, and none hands over one task per call.
  auto steals = [](const std::shared_ptr<const Program>& p, const std::string& expected, std::uint64_t enough) {
    for (const auto calls : {fast_exec::Calls::static_, fast_exec::Calls::dynamic}) {
      CAPTURE(static_cast<int>(calls));
      fast_exec::ExecOptions o;
      o.threads = 2;
      o.calls = calls;
      fast_exec::Executor s(p, o);
      std::uint64_t handed = 0;
      for (int k = 0; k < 200 && handed < enough; ++k) {
        const auto r = s.run();
        CHECK(output_text(*p, r) == expected);
        CHECK(r.handed < 1000);
        handed += r.handed;
      }
      CHECK(handed > 0);
    }
  };
  // fib(18) makes 8,361 calls. The idle worker takes the oldest task of the
  // busy one, a call near the root with most of the work under it, so a run
  // hands over a few tasks, not one per call.
  steals(feed(test::program_file("models/thesis-fib.json"), "n", 18), "i32:4181", 1);
  // Takeuchi's calls take three arguments: while both workers are busy, a
  // Call that is not its site's last fires at once under its caller's lock,
  // taking its callee's when it is free (SpinLock::try_lock).
  steals(feed(feed(feed(test::program_file("models/thesis-takeuchi.json"), "x", 18), "y", 12), "z", 6), "i32:7", 10);
  // Each worker runs its stack as a call stack: Ackermann on two threads holds
  // about as many instances as on one (the test above), not one per call.
  const auto p = feed(feed(test::program_file("models/thesis-ackermann.json"), "m", 3), "n", 3);
  fast_exec::ExecOptions o;
  o.threads = 2;
  fast_exec::Executor s(p, o);
  for (int k = 0; k < 3; ++k) CHECK(output_text(*p, s.run()) == "i32:61");
  const auto& frames = p->frames();
  const auto ack = std::find_if(frames.begin(), frames.end(), [](const Frame& f) { return f.name == "ack"; });
  REQUIRE(ack != frames.end());
  CHECK(s.instances_held(FrameId(static_cast<std::size_t>(ack - frames.begin()))) <= 800);
}

TEST_CASE("a loop's Exits that are a function's results return to the caller, live and DEAD") {
  // The Exits deliver into the function's iteration, and their results go on
  // to the caller's Return (C-EXIT, C-RETURN); with p false, once the loop's
  // instance completes (C-EXIT-DEAD). Delivered into the function's own
  // iteration instead, they would leave the run stuck.
  const auto base = test::program_file("models/loop-in-function.json");
  for (const bool p : {true, false}) {
    const auto program = feed(base, "p", Tensor::scalar(p));
    const std::map<std::string, std::string> expected = p ? std::map<std::string, std::string>{{"sum", "i32:55"}, {"i", "i32:11"}}
                                                           : std::map<std::string, std::string>{{"sum", "DEAD"}, {"i", "DEAD"}};
    for (const auto calls : {fast_exec::Calls::static_, fast_exec::Calls::dynamic})
      for (int threads : {1, 2}) {
        CAPTURE(p);
        CAPTURE(threads);
        fast_exec::ExecOptions o;
        o.threads = threads;
        o.calls = calls;
        fast_exec::Executor s(program, o);
        const auto r = s.run();
        CHECK_FALSE(r.stuck);
        for (const auto& [fetch, content] : s.outputs(r)) CHECK(content_to_string(*program, content) == expected.at(fetch));
      }
  }
}

TEST_CASE("a chain of 100,000 tail calls returns without deepening the C++ stack") {
  // is_even(n) and is_odd(n) call each other in tail position, so the last
  // call's result returns through every caller at once; a bounded number of
  // them return at once (Propagator::kNestedAtOnce), the rest as tasks.
  const auto p = feed(test::program_file("models/even-odd.json"), "n", 100000);
  for (int threads : {1, 2}) {
    CAPTURE(threads);
    fast_exec::ExecOptions o;
    o.threads = threads;
    fast_exec::Executor s(p, o);
    CHECK(output_text(*p, s.run()) == "bool:true");
  }
}

TEST_CASE("a Call that is not its site's last fires at once, and a chain of them does not deepen the C++ stack") {
  // count(x, y) = y if x == 0, else count(x - 1, y). The recursive call's
  // first argument depends on x alone, so on one thread its Call fires at once
  // (kCall) before y comes, and so does the callee's, 100,000 deep: a bounded
  // number nest (Propagator::kNestedAtOnce), the rest are tasks. The second
  // Call, its site's last, is a task: the callee completes then.
  const auto p = test::program_from(R"({
    "name": "count", "variables": {},
    "nodes": [{"id": "call", "op": "count"}],
    "edges": [{"id": "x", "kind": "tensor", "to": "call:0", "value": 100000},
              {"id": "y", "kind": "tensor", "to": "call:1", "value": 7},
              {"id": "r", "kind": "tensor", "from": "call"}],
    "library": [{"name": "count", "args": ["x", "y"], "results": ["r"],
      "nodes": [{"id": "eq", "op": "Equal"}, {"id": "sw_x", "op": "Switch"}, {"id": "sw_y", "op": "Switch"},
                {"id": "cp", "op": "Copy"}, {"id": "sub", "op": "Sub"}, {"id": "rec", "op": "count"}, {"id": "merge", "op": "Merge"}],
      "edges": [{"id": "x1", "kind": "tensor", "to": "eq:0", "arg": "x"},
                {"id": "zero", "kind": "tensor", "to": "eq:1", "value": 0},
                {"id": "x2", "kind": "tensor", "to": "sw_x:0", "arg": "x"},
                {"id": "p", "kind": "tensor", "from": "eq:0", "to": "cp:0"},
                {"id": "p1", "kind": "tensor", "from": "cp:0", "to": "sw_x:1"},
                {"id": "y1", "kind": "tensor", "to": "sw_y:0", "arg": "y"},
                {"id": "p2", "kind": "tensor", "from": "cp:1", "to": "sw_y:1"},
                {"id": "drop", "kind": "tensor", "from": "sw_x:1"},
                {"id": "x3", "kind": "tensor", "from": "sw_x:0", "to": "sub:0"},
                {"id": "one", "kind": "tensor", "to": "sub:1", "value": 1},
                {"id": "a0", "kind": "tensor", "from": "sub:0", "to": "rec:0"},
                {"id": "a1", "kind": "tensor", "from": "sw_y:0", "to": "rec:1"},
                {"id": "m0", "kind": "tensor", "from": "sw_y:1", "to": "merge:0"},
                {"id": "m1", "kind": "tensor", "from": "rec:0", "to": "merge:1"},
                {"id": "out", "kind": "tensor", "from": "merge:0", "result": "r"}]}]})");
  for (const auto calls : {fast_exec::Calls::static_, fast_exec::Calls::dynamic})
    for (int threads : {1, 2}) {
      CAPTURE(threads);
      fast_exec::ExecOptions o;
      o.threads = threads;
      o.calls = calls;
      fast_exec::Executor s(p, o);
      const auto r = s.run();
      CHECK_FALSE(r.stuck);
      CHECK(output_text(*p, r) == "i32:7");
    }
}

TEST_CASE("a DEAD Call whose site's call a live Call made at once tells the callee, which completes") {
  // In each iteration of a loop, f(a, b) gets a DEAD from one branch of a
  // Switch and b live from the other. On one thread, the DEAD Call is found
  // ready first, then the live one fires at once (kCall) and makes the call;
  // a DEAD Call fired at once after it would never tell the callee, which
  // would wait for it, and the loop would never go on (i EMPTY instead of 3),
  // so it goes as a task (C-CALL-DEAD). f's result waits for the
  // DEAD argument's Merge, so every run is stuck, as the reference says.
  const auto p = test::program_from(R"(
    {"name": "loop-mixed-call", "variables": {},
     "nodes": [{"id": "enter_i", "op": "Enter", "attrs": {"frame": "L", "parallel_iterations": 1}},
           {"id": "enter_limit", "op": "Enter", "attrs": {"frame": "L", "is_constant": true, "parallel_iterations": 1}},
           {"id": "enter_one", "op": "Enter", "attrs": {"frame": "L", "is_constant": true, "parallel_iterations": 1}},
           {"id": "merge", "op": "Merge"},
           {"id": "cpm", "op": "Copy"},
           {"id": "less", "op": "Less"},
           {"id": "cond", "op": "LoopCond"},
           {"id": "sw_i", "op": "Switch"},
           {"id": "exit", "op": "Exit"},
           {"id": "pivot", "op": "Identity"},
           {"id": "cp1", "op": "Copy"},
           {"id": "cp2", "op": "Copy"},
           {"id": "cp3", "op": "Copy"},
           {"id": "eq", "op": "Equal"},
           {"id": "sw2", "op": "Switch"},
           {"id": "call", "op": "f"},
           {"id": "add_i", "op": "Add"},
           {"id": "next", "op": "NextIteration"}],
     "edges": [{"id": "t0", "kind": "tensor", "to": "enter_i", "value": 0},
           {"id": "tl", "kind": "tensor", "to": "enter_limit", "value": 3},
           {"id": "t1", "kind": "tensor", "to": "enter_one", "value": 1},
           {"id": "e_i", "kind": "tensor", "from": "enter_i", "to": "merge:0"},
           {"id": "n_i", "kind": "tensor", "from": "next", "to": "merge:1"},
           {"id": "m", "kind": "tensor", "from": "merge:0", "to": "cpm"},
           {"id": "cpm0", "kind": "tensor", "from": "cpm:0", "to": "less:0"},
           {"id": "cpm1", "kind": "tensor", "from": "cpm:1", "to": "sw_i:0"},
           {"id": "lim", "kind": "tensor", "from": "enter_limit", "to": "less:1"},
           {"id": "lt", "kind": "tensor", "from": "less", "to": "cond"},
           {"id": "c", "kind": "tensor", "from": "cond", "to": "sw_i:1"},
           {"id": "sw_i0", "kind": "tensor", "from": "sw_i:0", "to": "exit"},
           {"id": "i", "kind": "tensor", "from": "exit", "fetch": "i"},
           {"id": "sw_i1", "kind": "tensor", "from": "sw_i:1", "to": "pivot"},
           {"id": "pv", "kind": "tensor", "from": "pivot", "to": "cp1"},
           {"id": "cp1_0", "kind": "tensor", "from": "cp1:0", "to": "add_i:0"},
           {"id": "one", "kind": "tensor", "from": "enter_one", "to": "add_i:1"},
           {"id": "ad", "kind": "tensor", "from": "add_i", "to": "next"},
           {"id": "cp1_1", "kind": "tensor", "from": "cp1:1", "to": "cp2"},
           {"id": "cp2_0", "kind": "tensor", "from": "cp2:0", "to": "eq:0"},
           {"id": "cp2_1", "kind": "tensor", "from": "cp2:1", "to": "cp3"},
           {"id": "cp3_0", "kind": "tensor", "from": "cp3:0", "to": "eq:1"},
           {"id": "cp3_1", "kind": "tensor", "from": "cp3:1", "to": "sw2:0"},
           {"id": "pr", "kind": "tensor", "from": "eq", "to": "sw2:1"},
           {"id": "a", "kind": "tensor", "from": "sw2:0", "to": "call:0"},
           {"id": "b", "kind": "tensor", "from": "sw2:1", "to": "call:1"},
           {"id": "r", "kind": "tensor", "from": "call", "fetch": ""}],
     "library": [{"name": "f", "args": ["a", "b"], "results": ["r"],
       "nodes": [{"id": "ida", "op": "Identity"}, {"id": "idb", "op": "Identity"}],
       "edges": [{"id": "a_in", "kind": "tensor", "to": "ida", "arg": "a"},
             {"id": "a_out", "kind": "tensor", "from": "ida", "fetch": ""},
             {"id": "b_in", "kind": "tensor", "to": "idb", "arg": "b"},
             {"id": "res", "kind": "tensor", "from": "idb", "result": "r"}]}]}
  )");
  for (const auto calls : {fast_exec::Calls::static_, fast_exec::Calls::dynamic})
    for (int threads : {1, 2}) {
      CAPTURE(threads);
      fast_exec::ExecOptions o;
      o.threads = threads;
      o.calls = calls;
      fast_exec::Executor s(p, o);
      const auto r = s.run();
      CHECK(r.stuck);
      CHECK(output_text(*p, r) == "i32:3");
    }
  CHECK(conform::conform(p, stressed(5)).conforms());
}

TEST_CASE("loops and recursion compute their results, on one thread and on two") {
  for (int threads : {1, 2}) {
    CAPTURE(threads);
    fast_exec::ExecOptions o;
    o.threads = threads;
    o.perturb_seed = 7;
    const auto fib = feed(test::program_file("models/fib.json"), "n", 15);
    fast_exec::Executor s(fib, o);
    CHECK(output_text(*fib, s.run()) == "i32:610");
    CHECK(output_text(*fib, s.run()) == "i32:610");  // the pools' reused states start clean
    auto dynamic = o;
    dynamic.calls = fast_exec::Calls::dynamic;
    fast_exec::Executor d(fib, dynamic);
    CHECK(output_text(*fib, d.run()) == "i32:610");
    const auto loop = test::program_file("models/while-sum.json");
    fast_exec::Executor w(loop, o);
    const Semantics sem(loop);
    auto state = sem.initial();
    while (!sem.terminal(state)) state = sem.fire(state, sem.enabled_transitions(state).front()).front();
    CHECK(output_text(*loop, w.run()) == content_to_string(*loop, outputs(*loop, state).front().second));
  }
}

TEST_CASE("S-STUCK: a run that leaves a node unfired ends, says so, and its Return gives DEAD") {
  const auto p = test::program_file("models/call-missing-argument.json");
  for (const auto calls : {fast_exec::Calls::static_, fast_exec::Calls::dynamic})
    for (int threads : {1, 2}) {
      CAPTURE(threads);
      fast_exec::Executor s(p, exec_options(calls, threads, 3));
      for (int run = 0; run < 20; ++run) {  // the call's result comes before or after the Call of v says no call was made
        const auto r = s.run();
        CHECK(r.stuck);
        for (const auto& [fetch, content] : s.outputs(r))
          CHECK(content_to_string(*p, content) == (fetch == "r" ? "DEAD" : "i32:5"));
      }
    }
  // A recursive call that never returns (its callee waits for an argument
  // that never comes), so its caller never completes either: the run must end, stuck, not hang.
  const auto recursion = Program::build(generate::random_graph(41, generate::kRandomRecursive));
  const auto report = conform::conform(recursion, stressed(10));
  REQUIRE(report.complete());
  CHECK(std::all_of(report.reference.outcomes.begin(), report.reference.outcomes.end(),
                    [](const explorer::Outcome& o) { return !o.stuck.empty(); }));
  CHECK(report.conforms());
}

TEST_CASE("X-HALT: a run stops, saying where and why, at a Switch on a term, in a loop on an error, and at its bounds") {
  const auto symbolic = test::program_file("models/while-placeholder-bound.json");
  const auto mismatched = feed(test::program_file("models/while-sum.json"), "t_3", Tensor::scalar(11.0F));
  const Semantics on_term(symbolic), on_error(mismatched);
  for (const auto calls : {fast_exec::Calls::static_, fast_exec::Calls::dynamic})
    for (int threads : {1, 2}) {
      CAPTURE(threads);
      const auto o = exec_options(calls, threads, 5);
      fast_exec::Executor term(symbolic, o);
      for (int run = 0; run < 3; ++run) {  // the pools' states given back after a halt are reused
        const auto r = term.run();
        REQUIRE(r.halt);
        CHECK(r.halt->why == fast_exec::Halt::Why::term_predicate);
        CHECK(symbolic->node(r.halt->node).op.kind == OpKind::switch_);
        CHECK(r.halt->context.size() == 1);
        CHECK(r.halt->context[0].second == 0);  // the first iteration's
        CHECK_FALSE(r.stuck);
        const auto text = fast_exec::halt_text(on_term, *r.halt);
        CHECK(text.find("a term") != std::string::npos);
        CHECK(text.find("--feed t_3=VALUE") != std::string::npos);
        CHECK(fetched_text(*symbolic, term, r).at("sum") == "EMPTY");
      }
      // Less(i32, f32) is an error, which the loop's Switches send down both
      // branches: iteration 0's Exits deliver it, and iteration 1's would again.
      fast_exec::Executor error(mismatched, o);
      std::size_t held = 0;
      for (int run = 0; run < 3; ++run) {
        const auto r = error.run();
        REQUIRE(r.halt);
        CHECK(r.halt->why == fast_exec::Halt::Why::endless_loop);
        CHECK(mismatched->node(r.halt->node).op.kind == OpKind::exit);
        REQUIRE(r.halt->context.size() == 1);
        CHECK(r.halt->context[0].second >= 1);
        const auto text = fast_exec::halt_text(on_error, *r.halt);
        CHECK(text.find("loop 'sum' would not end") != std::string::npos);
        CHECK(text.find("dtype") != std::string::npos);
        // A halted run's instances go back to the pools, which the next run takes them from.
        const auto now = error.instances_held(FrameId(std::uint32_t{1}));
        if (threads == 1) CHECK((run == 0 || now == held));  // on two, another worker's list may be empty
        held = now;
      }
    }
  // fib(1.5) calls fib on both branches of an error predicate (Less(f32, i32)):
  // the run halts where a call of fib under one makes another.
  const auto fib = test::program_file("models/thesis-fib.json");
  const auto error_fib = feed(fib, "n", Tensor::scalar(1.5F));
  for (const auto calls : {fast_exec::Calls::static_, fast_exec::Calls::dynamic}) {
    fast_exec::Executor recursion(error_fib, exec_options(calls, 2));
    for (int run = 0; run < 2; ++run) {
      const auto r = recursion.run();
      REQUIRE(r.halt);
      CHECK(r.halt->why == fast_exec::Halt::Why::endless_recursion);
      CHECK(error_fib->node(r.halt->node).op.kind == OpKind::call);
      CHECK(r.halt->context.size() == 2);  // in the second call of fib: the first was made without an error
    }
  }
  // down calls step on both branches of an error predicate, and step calls
  // down on no branch: the second call of down, made so, halts at its own.
  const auto forwarder = test::program_file("tests/fast_exec/mutual-recursion-through-a-forwarder.json");
  const auto error_forwarder = feed(forwarder, "n", Tensor::scalar(1.5F));
  for (const auto calls : {fast_exec::Calls::static_, fast_exec::Calls::dynamic})
    for (int threads : {1, 2}) {
      auto o = exec_options(calls, threads);
      o.max_depth = 64;  // were the recursion missed, a halt of another kind, not a hang
      const auto r = fast_exec::Executor(error_forwarder, o).run();
      REQUIRE(r.halt);
      CHECK(r.halt->why == fast_exec::Halt::Why::endless_recursion);
      CHECK(r.halt->context.size() == 3);  // down:1, step:1, down:2
      CHECK(forwarder->node(r.halt->node).op.kind == OpKind::call);
      CHECK(std::string_view(forwarder->node(r.halt->node).name()).starts_with("down/rec"));  // down's Call of step
      CHECK(output_text(*forwarder, fast_exec::Executor(forwarder, exec_options(calls, threads)).run()) == "bool:true");
    }
  // fib(10) called on an error branch: its own Calls are on the branches of a
  // good predicate, so the recursion ends.
  const auto on_branch = test::program_file("tests/fast_exec/fib-on-an-error-branch.json");
  for (const auto calls : {fast_exec::Calls::static_, fast_exec::Calls::dynamic}) {
    auto o = exec_options(calls, 2);
    o.max_depth = 64;
    fast_exec::Executor executor(on_branch, o);
    const auto r = executor.run();
    CHECK_FALSE(r.halt);
    CHECK(fetched_text(*on_branch, executor, r).at("result") == "i32:89");
  }
  // An error predicate beside the recursion, whose Calls are on no branch of it: the recursion ends.
  const auto beside = test::program_file("tests/fast_exec/fib-beside-an-error-cond.json");
  for (const auto calls : {fast_exec::Calls::static_, fast_exec::Calls::dynamic}) {
    const auto r = fast_exec::Executor(beside, exec_options(calls, 2)).run();
    CHECK_FALSE(r.halt);
    CHECK(output_text(*beside, r) == "i32:89");
  }
  // The bounds a run is given: a loop's iterations, and the calls' depth (fib(30) recurses 29 deep).
  fast_exec::ExecOptions bounded;
  bounded.max_iterations = 3;
  bounded.max_depth = 20;
  bounded.threads = 2;
  const auto loop = test::program_file("models/while-sum.json");
  fast_exec::Executor three(loop, bounded);
  const auto r3 = three.run();
  REQUIRE(r3.halt);
  CHECK(r3.halt->why == fast_exec::Halt::Why::iteration_limit);
  CHECK(r3.halt->value == "3");
  CHECK(r3.halt->context.back().second == 2);
  const auto fib30 = feed(fib, "n", 30);
  for (const auto calls : {fast_exec::Calls::static_, fast_exec::Calls::dynamic}) {
    bounded.calls = calls;
    fast_exec::Executor deep(fib30, bounded);
    for (int run = 0; run < 2; ++run) {
      const auto r = deep.run();
      REQUIRE(r.halt);
      CHECK(r.halt->why == fast_exec::Halt::Why::depth_limit);
      CHECK(r.halt->value == "21");
      CHECK(fib30->node(r.halt->node).op.kind == OpKind::call);
      // 20 contexts deep: the text gives the outermost three and the innermost
      // three (which call sites, 2 or 3, is the threads' race to the bound).
      const auto text = fast_exec::halt_text(Semantics(fib30), *r.halt);
      CHECK(text.find("in context fib:1,fib:") != std::string::npos);
      CHECK(text.find(",... 14 more ...,fib:") != std::string::npos);
    }
  }
  // A halt at the bound completes nothing: the loop's Exits, DEAD in the
  // iteration before, deliver nothing, whichever of the Exit and the
  // NextIteration fires first.
  const auto figure4 = test::program_file("models/thesis-figure-4-while.json");
  for (std::uint64_t seed = 0; seed < 20; ++seed) {
    bounded.perturb_seed = seed;
    fast_exec::Executor s(figure4, bounded);
    const auto r = s.run();
    REQUIRE(r.halt);
    CHECK(r.halt->why == fast_exec::Halt::Why::iteration_limit);
    for (const auto& [fetch, text] : fetched_text(*figure4, s, r)) CHECK(text == "EMPTY");
  }
  bounded.perturb_seed.reset();
  bounded.max_iterations = 12;  // within the bounds, the results
  CHECK(output_text(*loop, fast_exec::Executor(loop, bounded).run()) == "i32:11");
  // A conditional on an error predicate is no loop: the error goes down both branches, and the run ends.
  fast_exec::Executor cond(feed(test::program_file("models/cond-untaken-assign.json"), "p", Tensor::scalar(1)));
  const auto r = cond.run();
  CHECK_FALSE(r.halt);
  CHECK_FALSE(r.stuck);
}

TEST_CASE("forwarders, scalar functions, Consts and DEAD firings run where their token arrives, and count as fired") {
  // Chains of 100,000 Identity nodes and of 100,000 Adds on scalars (fired
  // from a work list, not recursively), a Copy whose control output triggers a
  // Const, a Switch whose untaken branch is DEAD through an Identity, a Neg
  // and a Const it triggers, a Switch on a Less, and a Div whose scalar entry
  // declines (division by zero), so that its kernel gives the error as a task.
  generate::SpecBuilder b("at-once");
  constexpr int kChain = 100000;
  b.feed(Tensor::scalar(std::int32_t{7}), {"id0", 0});
  b.feed(Tensor::scalar(std::int32_t{7}), {"add0", 0});
  for (int i = 0; i < kChain; ++i) {
    const auto n = std::to_string(i);
    b.node("id" + n, "Identity");
    b.node("add" + n, "Add");
    b.feed(Tensor::scalar(std::int32_t{1}), {"add" + n, 1});
    if (i == 0) continue;
    const auto before = std::to_string(i - 1);
    b.tensor({"id" + before, 0}, {"id" + n, 0});
    b.tensor({"add" + before, 0}, {"add" + n, 0});
  }
  b.output({"id" + std::to_string(kChain - 1), 0}, "chain");
  b.output({"add" + std::to_string(kChain - 1), 0}, "sum");
  b.node("args", "Copy");
  b.feed(Tensor::scalar(std::int32_t{2}), {"args", 0});
  b.node("div", "Div");
  b.tensor({"args", 0}, {"div", 0});
  b.feed(Tensor::scalar(std::int32_t{0}), {"div", 1});
  b.output({"div", 0}, "div");
  b.node("less", "Less");
  b.tensor({"args", 1}, {"less", 0});
  b.feed(Tensor::scalar(std::int32_t{3}), {"less", 1});
  b.node("switch2", "Switch");
  b.feed(Tensor::scalar(std::int32_t{9}), {"switch2", 0});
  b.tensor({"less", 0}, {"switch2", 1});
  b.output({"switch2", 0}, "if_false");
  b.output({"switch2", 1}, "if_true");
  b.node("copy", "Copy");
  b.feed(Tensor::scalar(std::int32_t{5}), {"copy", 0});
  b.output({"copy", 0}, "a");
  b.output({"copy", 1}, "b");
  b.node("k", "Const", "", {{"value", Tensor::scalar(std::int32_t{1})}});
  b.control("copy", "k");
  b.output({"k", 0}, "k");
  b.node("switch", "Switch");
  b.feed(Tensor::scalar(std::int32_t{3}), {"switch", 0});
  b.feed(Tensor::scalar(true), {"switch", 1});
  for (const std::string side : {"untaken", "taken"}) {
    const auto port = side == "untaken" ? 0 : 1;
    b.node(side, "Identity");
    b.tensor({"switch", port}, {side, 0});
    b.node(side + "_neg", "Neg");
    b.tensor({side, 0}, {side + "_neg", 0});
    b.node(side + "_k", "Const", "", {{"value", Tensor::scalar(std::int32_t{1})}});
    b.control(side + "_neg", side + "_k");
    b.output({side + "_neg", 0}, side);
    b.output({side + "_k", 0}, side + "_k");
  }
  const auto p = Program::build(std::move(b).build());
  const std::map<std::string, std::string> expected{
      {"chain", "i32:7"},          {"sum", "i32:100007"}, {"a", "i32:5"},
      {"b", "i32:5"},              {"k", "i32:1"},        {"untaken", "DEAD"},
      {"untaken_k", "DEAD"},       {"taken", "i32:-3"},   {"taken_k", "i32:1"},
      {"if_false", "DEAD"},        {"if_true", "i32:9"},
      {"div", "error(domain: Div: integer division by zero or overflow)"}};
  for (int threads : {1, 2}) {
    CAPTURE(threads);
    fast_exec::ExecOptions o;
    o.threads = threads;
    fast_exec::Executor s(p, o);
    const auto r = s.run();
    CHECK_FALSE(r.stuck);  // every node fired once
    for (const auto& [fetch, content] : s.outputs(r)) {
      CAPTURE(fetch);
      CHECK(content_to_string(*p, content) == expected.at(fetch));
    }
  }
  // A forced schedule names each firing: there, a forwarder waits for its step.
  generate::SpecBuilder small("forwarder-step");
  small.node("id", "Identity");
  small.feed(Tensor::scalar(std::int32_t{3}), {"id", 0});
  small.output({"id", 0}, "out");
  const auto q = Program::build(std::move(small).build());
  fast_exec::Executor forced(q);
  CHECK(output_text(*q, forced.run_schedule(parse_schedule(Semantics(q), "id"))) == "i32:3");
}

TEST_CASE("Consts of one value of attributes share their tuple; equal values read apart keep their own") {
  generate::SpecBuilder b("consts");
  for (const auto* k : {"k1", "k2", "k3", "k4"}) {
    b.node(k, "Const", "", {{"value", Tensor::scalar(std::int32_t{k[1] == '4' ? 4 : 1})}});
    b.go(k);
    b.output({k, 0}, k);
  }
  b.node("done", "NoOp");  // last: its empty tuple starts past the constants' end
  b.control("k4", "done");
  auto spec = std::move(b).build();
  spec.nodes[1].attrs = spec.nodes[0].attrs;  // as a reader gives the nodes that wrote one text
  const auto p = Program::build(std::move(spec));
  const fast_exec::CompiledGraph g(p, {});
  const auto constant = [&](const char* k) { return g.nodes[p->find_node(k)->index()].constant; };
  CHECK(constant("k1") != 0);
  CHECK(constant("k1") == constant("k2"));
  CHECK(constant("k3") != constant("k1"));  // an equal value of its own
  CHECK(constant("k4") != constant("k1"));
  CHECK(g.constants.size() == 3);
  CHECK(constant("done") == 4);
  fast_exec::Executor s(p);
  const auto r = s.run();
  CHECK_FALSE(r.stuck);
  CHECK(fetched_text(*p, s, r) ==
        std::map<std::string, std::string>{{"k1", "i32:1"}, {"k2", "i32:1"}, {"k3", "i32:1"}, {"k4", "i32:4"}});
}

TEST_CASE("a Const fetched and a Const not fetched share their tuple, in either order, on one thread and on two") {
  for (const bool fetched_first : {true, false}) {
    CAPTURE(fetched_first);
    generate::SpecBuilder b("shared-const");
    const auto one = Tensor::scalar(std::int32_t{1});
    for (const bool fetched : {fetched_first, !fetched_first}) {
      const std::string k = fetched ? "fetched" : "fed";
      b.node(k, "Const", "", {{"value", one}});
      b.go(k);
      if (fetched) {
        b.output({k, 0}, k);
      } else {
        b.node("id", "Identity");
        b.tensor({k, 0}, {"id", 0});
        b.output({"id", 0}, "id");
      }
    }
    auto spec = std::move(b).build();
    const auto node = [&](std::string_view id) {
      return std::find_if(spec.nodes.begin(), spec.nodes.end(), [&](const NodeSpec& n) { return n.id.view() == id; });
    };
    node("fed")->attrs = node("fetched")->attrs;  // one value, as a reader gives one text
    const auto p = Program::build(std::move(spec));
    const fast_exec::CompiledGraph g(p, {});
    REQUIRE(g.constants.size() == 1);
    for (int threads : {1, 2}) {
      CAPTURE(threads);
      fast_exec::ExecOptions o;
      o.threads = threads;
      fast_exec::Executor s(p, o);
      for (int run = 0; run < 2; ++run) {  // the second run finds the fetched constant in the result already
        CHECK(fetched_text(*p, s, s.run()) == std::map<std::string, std::string>{{"fetched", "i32:1"}, {"id", "i32:1"}});
      }
    }
  }
}

TEST_CASE("X-EXEC: a forced schedule runs a graph without control flow only") {
  fast_exec::Executor executor(test::program_file("models/while-sum.json"));
  try {
    executor.run_schedule({});
    FAIL("a forced schedule of a loop was accepted");
  } catch (const InputError& e) {
    CHECK(e.diagnostics().front().rule == "X-EXEC");
  }
}

TEST_CASE("1,000 fuzzed graphs conform") {
  for (std::uint64_t seed = 1; seed <= 1000 / kFuzzShare; ++seed) {
    CAPTURE(seed);
    CHECK(conform::conform(Program::build(generate::random_graph(seed)), stressed(3)).conforms());
  }
}

TEST_CASE("100 fuzzed graphs with conditionals and loops conform (tfsem fuzz --control runs more)") {
  std::size_t complete = 0;
  auto o = stressed(3);
  o.explore.limits.max_states = 2000;  // a graph beyond it gets no verdict, as in tests/fuzz
  for (std::uint64_t seed = 1; seed <= 100 / kFuzzShare; ++seed) {
    CAPTURE(seed);
    const auto report = conform::conform(Program::build(generate::random_graph(seed, generate::kRandomControl)), o);
    complete += report.complete() ? 1 : 0;
    CHECK((!report.complete() || report.conforms()));
  }
  CHECK(complete >= 80 / kFuzzShare);
}

TEST_CASE("50 fuzzed graphs with loops and recursive calls conform, static and dynamic (tfsem fuzz --recursive runs more)") {
  for (const auto calls : {fast_exec::Calls::static_, fast_exec::Calls::dynamic}) {
    std::size_t complete = 0;
    auto o = stressed(3);
    o.exec.calls = calls;
    o.explore.limits.max_states = 2000;
    for (std::uint64_t seed = 1; seed <= 50 / kFuzzShare; ++seed) {
      CAPTURE(seed);
      const auto report = conform::conform(Program::build(generate::random_graph(seed, generate::kRandomRecursive)), o);
      complete += report.complete() ? 1 : 0;
      CHECK((!report.complete() || report.conforms()));
    }
    CHECK(complete + kFuzzSlack >= 40 / kFuzzShare);
  }
}

TEST_CASE("conform has teeth: Assign-Add without its lock loses updates, and is caught, in a loop too") {
  for (const auto* model : {"models/assign-add-large.json", "models/loop-assign-add-p10.json"}) {
    CAPTURE(model);
    auto o = stressed(40);
    o.exec.unsafe_assign = true;
    // A lost update needs the two workers' Assign-Adds to overlap, which a
    // loaded machine may not give in one round of runs: up to ten rounds,
    // each with a schedule of its own.
    bool caught = false;
    for (std::uint64_t round = 0; round < 10 && !caught; ++round) {
      o.exec.perturb_seed = 42 + round;
      const auto report = conform::conform(test::program_file(model), o);
      CHECK(report.complete());
      caught = !report.conforms();
    }
    CHECK(caught);
  }
}
