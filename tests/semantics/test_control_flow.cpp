// One test per control-flow rule (ids as in specs/semantics.md: C-*), on
// small inline graphs and on the shipped models.
#include <doctest/doctest.h>

#include <set>

#include "semantics/diagnostic.hpp"
#include "support/graphs.hpp"

using namespace tfsem;
using test::program_from;
using test::run;

namespace {

// Switch(data, pred) -> Neg on the false side, Identity on the true side -> Merge.
std::string cond_graph(const char* pred, const char* data = "7") {
  return std::string(R"({"name": "cond",
    "nodes": [{"id": "switch", "op": "Switch"}, {"id": "neg", "op": "Neg"}, {"id": "id", "op": "Identity"},
              {"id": "merge", "op": "Merge"}],
    "edges": [
      {"id": "data", "kind": "tensor", "to": "switch:0", "value": )") + data + R"(},
      {"id": "pred", "kind": "tensor", "to": "switch:1", "value": )" + pred + R"(},
      {"id": "f", "kind": "tensor", "from": "switch:0", "to": "neg"},
      {"id": "t", "kind": "tensor", "from": "switch:1", "to": "id"},
      {"id": "from_neg", "kind": "tensor", "from": "neg", "to": "merge:0"},
      {"id": "from_id", "kind": "tensor", "from": "id", "to": "merge:1"},
      {"id": "y", "kind": "tensor", "from": "merge:0", "fetch": "y"},
      {"id": "index", "kind": "tensor", "from": "merge:1", "fetch": "index"}]})";
}

Transition at(const Semantics& sem, const std::string& step) { return parse_schedule(sem, step).at(0).transition(); }
std::string text(const Semantics& sem, const State& s, const char* edge, ContextId c = kRootContext) {
  return content_to_string(sem.program(), s.at(*sem.program().find_edge(edge), c));
}

State fire1(const Semantics& sem, const State& s, const std::string& step) {
  auto next = sem.fire(s, at(sem, step));
  REQUIRE(next.size() == 1);
  return next[0];
}

// Fires the first enabled transition until none is left, calling
// visit(t, s') after each firing.
template <class Visit>
State walk(const Semantics& sem, State s, Visit&& visit) {
  for (auto enabled = sem.enabled_transitions(s); !enabled.empty(); enabled = sem.enabled_transitions(s)) {
    s = sem.fire(s, enabled.front())[0];
    visit(enabled.front(), s);
  }
  return s;
}

State to_end(const Semantics& sem, State s = {}) {
  if (s.var_value.empty() && s.in_transit.empty()) s = sem.initial();
  return walk(sem, std::move(s), [](Transition, const State&) {});
}

// The contexts other than the root that hold anything in s.
std::set<ContextId> contexts_in(const State& s) {
  std::set<ContextId> out;
  for (const auto& [slot, c] : s.in_transit)
    if (slot.context != kRootContext) out.insert(slot.context);
  for (const auto& t : s.fired)
    if (t.context != kRootContext) out.insert(t.context);
  return out;
}

}  // namespace

TEST_CASE("C-SWITCH: the data goes to output 1 when the predicate is true, output 0 when false; DEAD to the other") {
  for (const auto& [pred, live, dead] : {std::tuple{"true", "t", "f"}, std::tuple{"false", "f", "t"}}) {
    const Semantics sem(program_from(cond_graph(pred)));
    const auto s = fire1(sem, sem.initial(), "switch");
    CHECK(text(sem, s, live) == "i32:7");
    CHECK(text(sem, s, dead) == "DEAD");
    CHECK(text(sem, s, "data") == "EMPTY");
    CHECK(text(sem, s, "pred") == "EMPTY");
  }
}

TEST_CASE("C-SWITCH: a concrete predicate that is not a bool scalar is an error, on both outputs") {
  for (const char* pred : {"1", "[true, false]"}) {
    CAPTURE(pred);
    const Semantics sem(program_from(cond_graph(pred)));
    const auto s = fire1(sem, sem.initial(), "switch");
    CHECK(text(sem, s, "t").starts_with("error("));
    CHECK(text(sem, s, "t") == text(sem, s, "f"));
  }
}

TEST_CASE("C-MERGE-TWO-LIVE: the errors an error predicate sends down both branches are a failed run, not a defect") {
  const Semantics sem(program_from(cond_graph("1")));
  auto s = run(sem, "switch,neg,id");
  const auto next = sem.fire(s, at(sem, "merge"));
  REQUIRE_FALSE(next.empty());
  for (const auto& end : next) {
    REQUIRE(sem.terminal(end));
    CHECK(sem.violations(end).empty());
    CHECK(text(sem, end, "y").starts_with("error("));
  }
}

TEST_CASE("C-SWITCH-SYMBOLIC: a term predicate takes each branch, each under its literal (S-PATH)") {
  const Semantics sem(program_from(cond_graph("\"P\"")));
  const auto next = sem.fire(sem.initial(), at(sem, "switch"));
  REQUIRE(next.size() == 2);
  const auto p = Tensor::atom("P");
  for (const auto& s : next) {
    REQUIRE(s.path.size() == 1);
    const bool taken = *s.path.value_of(p);
    CHECK(text(sem, s, taken ? "t" : "f") == "i32:7");
    CHECK(text(sem, s, taken ? "f" : "t") == "DEAD");
    CHECK(text(sem, s, "pred") == "EMPTY");
  }
  CHECK(next[0].path.value_of(p) != next[1].path.value_of(p));
  CHECK(next[0].path.to_string() == "P is true");
  CHECK(next[1].path.to_string() == "P is false");
  // The path condition is part of the state: the two are different states.
  CHECK_FALSE(next[0] == next[1]);
  CHECK(next[0].hash() != next[1].hash());
  // Each branch runs to one end, with no violation: the Merge gets one live input.
  for (const auto& s : next) {
    const auto end = to_end(sem, s);
    CHECK(sem.violations(end).empty());
    CHECK(text(sem, end, "y") == (*s.path.value_of(p) ? "i32:7" : "i32:-7"));
    CHECK(end.path == s.path);
  }
}

TEST_CASE("C-SWITCH-SYMBOLIC: a term the path condition decides takes the branch it allows alone") {
  // Two Switches on one term (equal terms are one, hash-consed): the second
  // follows the first, so there are two path conditions, not four.
  const Semantics sem(program_from(R"json({"name": "twice",
    "nodes": [{"id": "s1", "op": "Switch"}, {"id": "s2", "op": "Switch"}, {"id": "m1", "op": "Merge"}, {"id": "m2", "op": "Merge"}],
    "edges": [
      {"id": "d1", "kind": "tensor", "to": "s1:0", "value": 1}, {"id": "p1", "kind": "tensor", "to": "s1:1", "value": "Lt(X,N)"},
      {"id": "d2", "kind": "tensor", "to": "s2:0", "value": 2}, {"id": "p2", "kind": "tensor", "to": "s2:1", "value": "Lt(X,N)"},
      {"id": "f1", "kind": "tensor", "from": "s1:0", "to": "m1:0"}, {"id": "t1", "kind": "tensor", "from": "s1:1", "to": "m1:1"},
      {"id": "f2", "kind": "tensor", "from": "s2:0", "to": "m2:0"}, {"id": "t2", "kind": "tensor", "from": "s2:1", "to": "m2:1"},
      {"id": "i1", "kind": "tensor", "from": "m1:1", "fetch": "i1"}, {"id": "i2", "kind": "tensor", "from": "m2:1", "fetch": "i2"},
      {"id": "y1", "kind": "tensor", "from": "m1:0", "fetch": ""}, {"id": "y2", "kind": "tensor", "from": "m2:0", "fetch": ""}]})json"));
  std::set<std::string> ends;
  for (const auto& s : sem.fire(sem.initial(), at(sem, "s1"))) {
    const auto second = sem.fire(s, at(sem, "s2"));
    REQUIRE(second.size() == 1);
    CHECK(second[0].path == s.path);
    const auto end = to_end(sem, second[0]);
    ends.insert(end.path.to_string() + ": " + text(sem, end, "i1") + " " + text(sem, end, "i2"));
  }
  CHECK(ends == std::set<std::string>{"Lt(X,N) is true: i32:1 i32:1", "Lt(X,N) is false: i32:0 i32:0"});
}

TEST_CASE("C-DEAD: a node with a DEAD input puts DEAD on every output and has no effect") {
  const Semantics sem(program_from(cond_graph("true")));
  const auto s = fire1(sem, fire1(sem, sem.initial(), "switch"), "neg");
  CHECK(text(sem, s, "from_neg") == "DEAD");
  CHECK(s.has_fired(*sem.program().find_node("neg"), kRootContext));
  // A dead Write changes nothing; the Read after the cond sees the old value.
  const Semantics assign(test::program_file("models/cond-untaken-assign.json"));
  std::set<std::string> outs;
  test::all_outputs(assign, assign.initial(), outs);
  CHECK(outs == std::set<std::string>{"y=i32:8 x_after=i32:0"});
}

TEST_CASE("C-MERGE: the one live input, and its index; the Merge waits for no other input") {
  const Semantics sem(program_from(cond_graph("true")));
  auto s = run(sem, "switch,id");
  CHECK(sem.enabled(s, at(sem, "merge")));  // the false side has not fired yet
  s = fire1(sem, s, "merge");
  CHECK(text(sem, s, "y") == "i32:7");
  CHECK(text(sem, s, "index") == "i32:1");
  CHECK(text(sem, s, "from_id") == "EMPTY");
  // C-ONCE: the DEAD from the other side arrives later, and is left there.
  s = fire1(sem, s, "neg");
  CHECK_FALSE(sem.enabled(s, at(sem, "merge")));
  CHECK(text(sem, s, "from_neg") == "DEAD");
  CHECK(sem.terminal(s));
  CHECK(sem.stuck(s).empty());
  CHECK(sem.violations(s).empty());
}

TEST_CASE("C-MERGE-DEAD: when every input is DEAD, the Merge outputs DEAD") {
  const Semantics sem(program_from(R"({"name": "both dead",
    "nodes": [{"id": "s1", "op": "Switch"}, {"id": "s2", "op": "Switch"}, {"id": "merge", "op": "Merge"}],
    "edges": [
      {"id": "d1", "kind": "tensor", "to": "s1:0", "value": 1}, {"id": "p1", "kind": "tensor", "to": "s1:1", "value": true},
      {"id": "d2", "kind": "tensor", "to": "s2:0", "value": 2}, {"id": "p2", "kind": "tensor", "to": "s2:1", "value": false},
      {"id": "a", "kind": "tensor", "from": "s1:0", "to": "merge:0"}, {"id": "b", "kind": "tensor", "from": "s2:1", "to": "merge:1"},
      {"id": "x", "kind": "tensor", "from": "s1:1", "fetch": ""}, {"id": "z", "kind": "tensor", "from": "s2:0", "fetch": ""},
      {"id": "y", "kind": "tensor", "from": "merge:0", "fetch": "y"}]})"));
  auto s = run(sem, "s1");
  CHECK_FALSE(sem.enabled(s, at(sem, "merge")));  // one DEAD input; the other may still be live
  s = run(sem, "s1,s2,merge");
  CHECK(text(sem, s, "y") == "DEAD");
}

TEST_CASE("C-MERGE-TWO-LIVE: two live inputs are two possible results and a violation, never a silent choice") {
  const Semantics sem(test::program_file("models/merge-two-live.json"));
  const auto s = run(sem, "a,b");
  const auto next = sem.fire(s, at(sem, "merge"));
  REQUIRE(next.size() == 2);
  for (const auto& end : next) {
    REQUIRE(sem.terminal(end));
    const auto v = sem.violations(end);
    REQUIRE(v.size() == 1);
    CHECK(v[0].kind == Violation::Kind::merge_two_live);
  }
  CHECK(text(sem, next[0], "y") == "i32:1");
  CHECK(text(sem, next[1], "y") == "i32:-2");
}

TEST_CASE("C-ENTER and C-SLOT: Enter puts its input in iteration 0 of the frame; nodes there fire in that context") {
  const Semantics sem(test::program_file("models/thesis-figure-4-while.json"));
  const auto& p = sem.program();
  const auto s = fire1(sem, sem.initial(), "enter_0");
  const auto iteration0 = sem.contexts().child(kRootContext, *p.find_frame("while"), 0);
  CHECK(content_to_string(p, s.at(p.node(*p.find_node("enter_0")).out[0], iteration0)) == "i32:0");
  CHECK(context_to_string(sem.program(), sem.contexts(), iteration0) == "while:0");
  CHECK(sem.enabled(s, at(sem, "merge_0[while:0]")));
  CHECK_THROWS_AS(parse_schedule(sem, "merge_0"), InputError);  // a loop's node needs its context
}

TEST_CASE("C-ENTER-CONST: a constant Enter's value serves every iteration and is never consumed") {
  const Semantics sem(test::program_file("models/thesis-figure-4-while.json"));
  const auto& p = sem.program();
  const auto limit = p.node(*p.find_node("enter_limit")).out[0];
  const auto frame = *p.find_frame("while");
  const auto iteration0 = sem.contexts().child(kRootContext, frame, 0);
  const auto last = sem.contexts().child(kRootContext, frame, 10);
  int served = 0;
  const auto s = walk(sem, sem.initial(), [&](Transition t, const State& now) {
    if (t.node != *p.find_node("less") || now.holds(limit, iteration0) != Holds::live) return;
    ++served;  // read, and still there
    if (t.context == last) CHECK(content_to_string(p, now.at(limit, iteration0)) == "i32:10");
  });
  CHECK(served == 11);
  CHECK(text(sem, s, "i") == "i32:10");
  // C-FINISHED: once the loop is over, its instance leaves the state, invariant included.
  CHECK(s.holds(limit, iteration0) == Holds::empty);
}

TEST_CASE("C-NEXT: NextIteration carries its value to the next iteration; C-NEXT-DEAD: DEAD stops there") {
  const Semantics sem(test::program_file("models/thesis-figure-4-while.json"));
  const auto frame = *sem.program().find_frame("while");
  const auto next = *sem.program().find_node("next_0"), merge = *sem.program().find_node("merge_0");
  std::set<std::uint32_t> nexts, merges;
  const auto s = walk(sem, sem.initial(), [&](Transition t, const State&) {
    if (t.node == next) nexts.insert(sem.contexts()[t.context].iteration);
    if (t.node == merge) merges.insert(sem.contexts()[t.context].iteration);
  });
  // Iterations 0..10 ran: iteration 10's predicate is false, its NextIteration
  // got DEAD and produced nothing, so no iteration 11 began.
  CHECK(nexts.size() == 11);
  CHECK(*nexts.rbegin() == 10);
  CHECK(merges == nexts);
  CHECK(sem.contexts()[sem.contexts().child(kRootContext, frame, 10)].iteration == 10);
  CHECK(sem.stuck(s).empty());
}

TEST_CASE("C-FINISHED: an iteration, a frame instance and a call leave the state once no token can reach them") {
  // A loop: at most iteration 0 (its invariants), the running one and the next are in the state.
  const Semantics loop(test::program_file("models/while-sum.json"));
  std::size_t most = 0;
  auto s = walk(loop, loop.initial(), [&](Transition, const State& now) { most = std::max(most, contexts_in(now).size()); });
  CHECK(most <= 3);
  CHECK(contexts_in(s).empty());
  CHECK(text(loop, s, "sum") == "i32:55");
  CHECK(loop.stuck(s).empty());
  // What left is counted: every firing is a record the state keeps or a retired one.
  CHECK(s.fired.size() + s.retired == 4 + 11 * 14 + 2);
  // Nested loops and recursion end with the root alone too.
  for (const char* model : {"models/nested-loops.json", "models/fib.json", "models/loop-in-function.json"}) {
    const Semantics sem(test::program_file(model));
    CHECK(contexts_in(to_end(sem)).empty());
  }
  // A stuck loop keeps what is stuck.
  const Semantics stuck(test::program_file("tests/spin/graphs/loop-stuck.json"));
  const auto end = to_end(stuck);
  CHECK_FALSE(stuck.stuck(end).empty());
  CHECK_FALSE(contexts_in(end).empty());
}

TEST_CASE("C-EXIT: an Exit delivers its loop's value to the parent context once") {
  const Semantics sem(test::program_file("models/while-sum.json"));
  const auto s = to_end(sem);
  CHECK(text(sem, s, "sum") == "i32:55");
  CHECK(text(sem, s, "i") == "i32:11");
  CHECK(sem.stuck(s).empty());
  CHECK(sem.violations(s).empty());
}

TEST_CASE("C-EXIT-DEAD: a loop on an untaken branch delivers DEAD once its frame instance is complete") {
  const Semantics sem(test::program_file("models/loop-in-untaken-branch.json"));
  std::set<std::string> outs;
  test::all_outputs(sem, sem.initial(), outs);
  CHECK(outs == std::set<std::string>{"r=i32:16"});
  const auto s = to_end(sem);
  CHECK(sem.stuck(s).empty());
  const auto exit = *sem.program().find_node("loop_exit_n");
  CHECK(s.has_fired(exit, kRootContext));  // the Exit's record is in the parent context
}

TEST_CASE("C-BOUND and C-DONE: with parallel_iterations 1, iteration 1 starts only when iteration 0 is done") {
  const Semantics sem(test::program_file("models/loop-assign-add-p1.json"));
  // Iteration 0 up to its NextIterations, but not its Read and Assign-Add.
  auto s = run(sem, "enter_0,enter_1,enter_limit,enter_one,enter_inc,merge_0[loop:0],merge_1[loop:0],copy_i[loop:0],"
                    "less[loop:0],cond[loop:0],copy_pred_0[loop:0],switch_0[loop:0],switch_1[loop:0],pivot[loop:0],"
                    "body[loop:0],add_i[loop:0],next_0[loop:0]");
  CHECK_FALSE(sem.enabled(s, at(sem, "merge_0[loop:1]")));
  const auto why = sem.why_not_enabled(s, at(sem, "merge_0[loop:1]"));
  REQUIRE_FALSE(why.empty());
  CHECK(why[0].reason.find("parallel_iterations is 1") != std::string::npos);
  s = run(sem, "enter_0,enter_1,enter_limit,enter_one,enter_inc,merge_0[loop:0],merge_1[loop:0],copy_i[loop:0],"
               "less[loop:0],cond[loop:0],copy_pred_0[loop:0],switch_0[loop:0],switch_1[loop:0],pivot[loop:0],"
               "body[loop:0],add_i[loop:0],next_0[loop:0],var_read[loop:0],var_assign[loop:0],read[loop:0],assign[loop:0],"
               "add_acc[loop:0],next_1[loop:0]");
  CHECK(sem.enabled(s, at(sem, "merge_0[loop:1]")));
  // With parallel_iterations 10 the same iteration 1 may start at once.
  const Semantics wide(test::program_file("models/loop-assign-add-p10.json"));
  s = run(wide, "enter_0,enter_1,enter_limit,enter_one,enter_inc,merge_0[loop:0],merge_1[loop:0],copy_i[loop:0],"
                "less[loop:0],cond[loop:0],copy_pred_0[loop:0],switch_0[loop:0],switch_1[loop:0],pivot[loop:0],"
                "body[loop:0],add_i[loop:0],next_0[loop:0]");
  CHECK(wide.enabled(s, at(wide, "merge_0[loop:1]")));
}

TEST_CASE("C-ONCE: each node fires at most once in each context, and in every context of its frame that exists") {
  const Semantics sem(test::program_file("models/nested-loops.json"));
  const auto inner = *sem.program().find_node("inner_add_n");
  int fired = 0;
  const auto s = walk(sem, sem.initial(), [&](Transition t, const State&) { fired += t.node == inner; });
  CHECK(text(sem, s, "n") == "i32:4");
  CHECK(sem.stuck(s).empty());
  // Live in outer:0,inner:0 .. outer:1,inner:1; dead in each inner loop's last
  // iteration (inner:2), and in the inner loop entered, dead, in the outer
  // loop's last iteration (outer:2,inner:0).
  CHECK(fired == 7);
  CHECK(transition_to_string(sem.program(), sem.contexts(), at(sem, "inner_add_n[outer:1,inner:0]")) ==
        "inner_add_n[outer:1,inner:0]");
}

TEST_CASE("T-SCHEDULE: contexts are named by frame and iteration; a wrong one is refused with the reason") {
  const Semantics sem(test::program_file("models/nested-loops.json"));
  CHECK_THROWS_AS(parse_schedule(sem, "inner_add_n[inner:0]"), InputError);  // inner is entered from outer
  CHECK_THROWS_AS(parse_schedule(sem, "inner_add_n[outer:0]"), InputError);  // the node is in inner
  CHECK_THROWS_AS(parse_schedule(sem, "inner_add_n[nowhere:0]"), InputError);
  CHECK_THROWS_AS(parse_schedule(sem, "outer_enter_i[outer:0]"), InputError);  // an Enter fires in its parent frame
  // Each iteration takes a step: no run of two steps reaches iteration 3, and a far iteration is refused
  // without overflowing the stack (tests/regressions/inputs/schedule-iteration-44360).
  CHECK_THROWS_WITH(parse_schedule(sem, "outer_enter_i, inner_add_n[outer:999999,inner:0]"),
                    "schedule: step 'inner_add_n[outer:999999,inner:0]': iteration 999999 of loop frame 'outer' cannot be "
                    "reached in a run of 2 steps [T-SCHEDULE]");
  const auto steps = parse_schedule(sem, "outer_enter_i, inner_add_n[outer:1,inner:0]/0");
  REQUIRE(steps.size() == 2);
  CHECK(step_to_string(sem, steps[1]) == "inner_add_n[outer:1,inner:0]");
  const auto why = refuse_step(sem, sem.initial(), steps[1]);
  REQUIRE(why.has_value());
  CHECK(why->find("does not exist yet") != std::string::npos);
}

TEST_CASE("C-CONTEXT: a context is a stack of (frame, iteration) pairs, the root the empty one, interned as one value") {
  const Semantics sem(test::program_file("models/nested-loops.json"));
  const auto& p = sem.program();
  const auto& ctx = sem.contexts();
  const auto outer = *p.find_frame("outer");
  const auto inner = *p.find_frame("inner");
  const auto outer1 = ctx.child(kRootContext, outer, 1);
  const auto nested = ctx.child(outer1, inner, 2);
  CHECK(ctx.child(kRootContext, outer, 1) == outer1);  // interned: the same stack is the same ContextId
  CHECK(ctx.child(ctx.child(kRootContext, outer, 1), inner, 2) == nested);
  CHECK_FALSE(ctx.child(kRootContext, outer, 0) == outer1);
  CHECK(ctx[kRootContext].depth == 0);
  CHECK(context_to_string(p, ctx, kRootContext).empty());
  CHECK(ctx[nested].depth == 2);
  CHECK(ctx[nested].parent == outer1);
  CHECK(ctx[nested].frame == inner);
  CHECK(ctx[nested].iteration == 2);
  CHECK(ctx[outer1].parent == kRootContext);
  CHECK(context_to_string(p, ctx, nested) == "outer:1,inner:2");  // outermost first
  ContextNames names(p, ctx);  // the same names, each built once
  CHECK(names(nested) == "outer:1,inner:2");
  CHECK(names(outer1) == "outer:1");
  CHECK(names(kRootContext).empty());
  CHECK(names.transition({*p.find_node("inner_add_n"), nested}) == "inner_add_n[outer:1,inner:2]");
  CHECK(ctx.next_iteration(ctx.child(outer1, inner, 1)) == nested);
}

TEST_CASE("C-STATE: InTransit maps an edge in a context, so one edge holds a token in several iterations; fired records (n, c)") {
  const Semantics sem(test::program_file("models/thesis-figure-4-while.json"));
  const auto& p = sem.program();
  const auto frame = *p.find_frame("while");
  const auto iteration = [&](std::uint32_t i) { return sem.contexts().child(kRootContext, frame, i); };
  // Two iterations, up to iteration 1's NextIteration: each iteration's Switch left DEAD for the Exit.
  const auto s = run(sem, "enter_one,enter_limit,enter_0,merge_0[while:0],copy_i[while:0],less[while:0],cond[while:0],"
                          "switch_0[while:0],pivot[while:0],add_i[while:0],next_0[while:0],merge_0[while:1],"
                          "copy_i[while:1],less[while:1],cond[while:1],switch_0[while:1],pivot[while:1],add_i[while:1],"
                          "next_0[while:1]");
  const auto to_exit = p.node(*p.find_node("switch_0")).out[0];
  CHECK(is_dead(s.at(to_exit, iteration(0))));
  CHECK(is_empty(s.at(to_exit, iteration(2))));
  CHECK(is_empty(s.at(to_exit, kRootContext)));
  CHECK(content_to_string(p, s.at(p.node(*p.find_node("next_0")).out[0], iteration(2))) == "i32:2");
  const auto merge = *p.find_node("merge_0");
  CHECK(s.has_fired(merge, iteration(0)));
  CHECK_FALSE(s.has_fired(merge, iteration(2)));
  CHECK_FALSE(s.has_fired(merge, kRootContext));
  // Iteration 1 is over and iteration 2 has begun: it left the state
  // (C-FINISHED), its DEAD token for the Exit and its 8 records with it.
  CHECK(is_empty(s.at(to_exit, iteration(1))));
  CHECK_FALSE(s.has_fired(merge, iteration(1)));
  CHECK(s.retired == 8);
  CHECK(s.fired.size() + s.retired == 19);  // one record per step
}

TEST_CASE("C-ENABLED: (n, c) fires when c exists, n has not fired in c, and n's inputs hold contents in c") {
  const Semantics sem(test::program_file("models/thesis-figure-4-while.json"));
  const auto& p = sem.program();
  auto s = run(sem, "enter_one,enter_limit,enter_0,merge_0[while:0],copy_i[while:0],less[while:0],cond[while:0],"
                    "switch_0[while:0],pivot[while:0],add_i[while:0],next_0[while:0],merge_0[while:1],copy_i[while:1]");
  CHECK(sem.enabled(s, at(sem, "less[while:1]")));
  // The loop invariant's token is in iteration 0 alone, and serves iteration 1.
  const auto limit = p.node(*p.find_node("enter_limit")).out[0];
  CHECK(is_empty(s.at(limit, sem.contexts().child(kRootContext, *p.find_frame("while"), 1))));
  CHECK_FALSE(sem.enabled(s, at(sem, "merge_0[while:1]")));  // fired there already (C-ONCE)
  CHECK_FALSE(sem.enabled(s, at(sem, "copy_i[while:0]")));
  CHECK_FALSE(sem.enabled(s, at(sem, "cond[while:1]")));     // its input is EMPTY in while:1
  // Nothing is in while:2 yet.
  const auto while2 = sem.contexts().child(kRootContext, *p.find_frame("while"), 2);
  CHECK_FALSE(sem.enabled(s, {*p.find_node("merge_0"), while2}));
  const auto enabled = sem.enabled_transitions(s);
  CHECK(enabled == std::vector<Transition>{at(sem, "less[while:1]")});
  s = fire1(sem, s, "less[while:1]");
  CHECK(sem.enabled(s, at(sem, "cond[while:1]")));
}

TEST_CASE("C-REF: RefIdentity passes its variable handle on, and the Read behind it reads that variable") {
  const Semantics sem(program_from(R"({
    "variables": {"x": 7},
    "nodes": [{"id": "v", "op": "Var", "var": "x"}, {"id": "ref", "op": "RefIdentity"}, {"id": "r", "op": "Read"}],
    "edges": [
      {"id": "g", "kind": "control", "to": "v"},
      {"id": "h1", "kind": "variable", "from": "v", "to": "ref"},
      {"id": "h2", "kind": "variable", "from": "ref", "to": "r"},
      {"id": "y", "kind": "tensor", "from": "r", "fetch": "y"}]})"));
  const auto& p = sem.program();
  auto s = fire1(sem, fire1(sem, sem.initial(), "v"), "ref");
  CHECK(is_empty(s.at(*p.find_edge("h1"))));
  CHECK(std::get<VarId>(s.at(*p.find_edge("h2"))) == *p.find_variable("x"));
  CHECK(sem.access(*p.find_node("r")).var == *p.find_variable("x"));
  s = fire1(sem, s, "r");
  CHECK(text(sem, s, "y") == "i32:7");
}

TEST_CASE("C-EXIT-TWICE: an Exit's input left live in another iteration after the Exit delivered is the violation exit-twice") {
  // An Exit that takes i in every iteration, not only the last: it delivers once.
  const Semantics sem(test::program_file("tests/spin/graphs/loop-stuck.json"));
  const auto& p = sem.program();
  const auto exit = *p.find_node("exit_each");
  std::vector<State> todo{sem.initial()};
  std::unordered_set<State> seen{todo.back()};
  std::set<std::string> delivered;
  while (!todo.empty()) {
    const auto s = todo.back();
    todo.pop_back();
    const auto enabled = sem.enabled_transitions(s);
    for (auto t : enabled)
      for (auto& next : sem.fire(s, t))
        if (seen.insert(next).second) todo.push_back(std::move(next));
    if (!enabled.empty()) continue;
    CHECK(s.has_fired(exit, kRootContext));
    delivered.insert(text(sem, s, "first"));
    bool exit_twice = false;
    for (const auto& v : sem.violations(s)) {
      if (v.kind != Violation::Kind::exit_twice) continue;
      exit_twice = true;
      CHECK(v.at.node == exit);
      CHECK(v.edge == *p.find_edge("i_each"));
      CHECK(holds(s.at(v.edge, v.at.context)) == Holds::live);
      CHECK(sem.contexts()[v.at.context].parent == kRootContext);
    }
    CHECK(exit_twice);
  }
  CHECK(delivered == std::set<std::string>{"i32:0", "i32:1"});
}
