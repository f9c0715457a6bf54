// One test per rule of section 3.2.1 (ids as in specs/semantics.md).
#include <doctest/doctest.h>

#include "semantics/diagnostic.hpp"
#include "support/graphs.hpp"

using namespace tfsem;
using test::program_from;

namespace {

// Var(x) -> Assign-Add <- input v;  Assign-Add -ctl-> Var(x) -> Read -> y
const char* kAssignThenRead = R"({
  "name": "assign-then-read",
  "variables": {"x": [10]},
  "nodes": [
    {"id": "v1", "op": "Var", "var": "x"}, {"id": "add", "op": "Assign-Add"},
    {"id": "v2", "op": "Var", "var": "x"}, {"id": "r", "op": "Read"}],
  "edges": [
    {"id": "g1", "kind": "control", "to": "v1"},
    {"id": "h1", "kind": "variable", "from": "v1", "to": "add:0"},
    {"id": "in", "kind": "tensor", "to": "add:1", "value": [5]},
    {"id": "c", "kind": "control", "from": "add", "to": "v2"},
    {"id": "h2", "kind": "variable", "from": "v2", "to": "r"},
    {"id": "y", "kind": "tensor", "from": "r", "fetch": "y"}]})";

EdgeId edge(const Program& p, const char* name) { return *p.find_edge(name); }
// Node `name` firing in the root context.
Transition node(const Program& p, const char* name) { return {*p.find_node(name)}; }
const Content& at(const Program& p, const State& s, const char* e) { return s.at(edge(p, e)); }
std::string text(const Program& p, const State& s, const char* e) { return content_to_string(p, at(p, s, e)); }

State fire1(const Semantics& sem, const State& s, const char* n) {
  auto next = sem.fire(s, node(sem.program(), n));
  REQUIRE(next.size() == 1);
  return next[0];
}

}  // namespace

TEST_CASE("S-INIT: input edges hold their contents, other edges are EMPTY, VarValue is initial") {
  Semantics sem(program_from(kAssignThenRead));
  const auto& p = sem.program();
  const auto s = sem.initial();
  CHECK(text(p, s, "g1") == "GO");
  CHECK(text(p, s, "in") == "i32:[5]");
  for (const char* e : {"h1", "c", "h2", "y"}) CHECK(is_empty(at(p, s, e)));
  CHECK(s.var_value[0].to_string() == "i32:[10]");
}

TEST_CASE("S-ENABLED: a node is enabled exactly when all its incoming edges are non-EMPTY") {
  Semantics sem(program_from(kAssignThenRead));
  const auto& p = sem.program();
  const auto s = sem.initial();
  CHECK(sem.enabled(s, node(p, "v1")));
  CHECK_FALSE(sem.enabled(s, node(p, "add")));  // h1 EMPTY
  CHECK_FALSE(sem.enabled(s, node(p, "v2")));   // control edge c EMPTY
  const auto why = sem.why_not_enabled(s, node(p, "v2"));
  REQUIRE(why.size() == 1);
  CHECK(why[0].reason == "incoming control edge 'c' is EMPTY (node 'add' has not fired)");
  CHECK(sem.enabled_transitions(s) == std::vector<Transition>{node(p, "v1")});
}

TEST_CASE("S-VAR and S-CTRL-1: Var(x) outputs x and consumes its control input") {
  Semantics sem(program_from(kAssignThenRead));
  const auto& p = sem.program();
  const auto s = fire1(sem, sem.initial(), "v1");
  CHECK(std::get<VarId>(at(p, s, "h1")) == *p.find_variable("x"));
  CHECK(is_empty(at(p, s, "g1")));
  CHECK(text(p, s, "in") == "i32:[5]");  // S-FRAME: an edge not incident on v1 is unchanged
}

TEST_CASE("S-ASSIGN and S-CTRL-2: Assign-f consumes both inputs, updates x atomically, emits GO") {
  Semantics sem(program_from(kAssignThenRead));
  const auto& p = sem.program();
  const auto s = fire1(sem, fire1(sem, sem.initial(), "v1"), "add");
  CHECK(is_empty(at(p, s, "h1")));
  CHECK(is_empty(at(p, s, "in")));
  CHECK(text(p, s, "c") == "GO");
  CHECK(s.var_value[0].to_string() == "i32:[15]");
}

TEST_CASE("S-READ: Read consumes the handle and outputs VarValue(x); nothing else changes") {
  Semantics sem(program_from(kAssignThenRead));
  const auto& p = sem.program();
  auto s = sem.initial();
  for (const char* n : {"v1", "add", "v2"}) s = fire1(sem, s, n);
  const auto before = s;
  s = fire1(sem, s, "r");
  CHECK(is_empty(at(p, s, "h2")));
  CHECK(text(p, s, "y") == "i32:[15]");
  CHECK(s.var_value == before.var_value);
  CHECK(sem.terminal(s));
  CHECK(sem.stuck(s).empty());
}

TEST_CASE("S-FN: a function consumes its k inputs and produces its l results in port order") {
  Semantics sem(program_from(R"({
    "nodes": [{"id": "split", "op": "Split"}, {"id": "sub", "op": "Sub"}],
    "edges": [
      {"id": "in", "kind": "tensor", "to": "split", "value": [1,2,3,4]},
      {"id": "lo", "kind": "tensor", "from": "split:0", "to": "sub:1"},
      {"id": "hi", "kind": "tensor", "from": "split:1", "to": "sub:0"},
      {"id": "out", "kind": "tensor", "from": "sub", "fetch": "d"}]})"));
  const auto& p = sem.program();
  auto s = fire1(sem, sem.initial(), "split");
  CHECK(is_empty(at(p, s, "in")));
  CHECK(text(p, s, "lo") == "i32:[1,2]");
  CHECK(text(p, s, "hi") == "i32:[3,4]");
  s = fire1(sem, s, "sub");
  CHECK(text(p, s, "out") == "i32:[2,2]");  // hi - lo: argument order follows the ports
}

TEST_CASE("S-FN with k = 0: Const fires on its control edge") {
  Semantics sem(program_from(R"({
    "nodes": [{"id": "k", "op": "Const", "attrs": {"value": [7]}}],
    "edges": [{"id": "go", "kind": "control", "to": "k"}, {"id": "out", "kind": "tensor", "from": "k"}]})"));
  const auto s = fire1(sem, sem.initial(), "k");
  CHECK(text(sem.program(), s, "out") == "i32:[7]");
  CHECK(is_empty(at(sem.program(), s, "go")));
}

TEST_CASE("S-FN with an uninterpreted function: terms even on concrete arguments, one arity per node") {
  Semantics sem(program_from(R"({
    "variables": {"x": 1},
    "functions": {"Shuffle": {"stateful": true}, "Scale": {}},
    "nodes": [{"id": "two", "op": "Shuffle"}, {"id": "one", "op": "Shuffle"},
              {"id": "v", "op": "Var", "var": "x"}, {"id": "a", "op": "Assign-Scale"}],
    "edges": [
      {"id": "p", "kind": "tensor", "to": "two:0", "value": [1, 2]},
      {"id": "q", "kind": "tensor", "to": "two:1", "value": "B"},
      {"id": "lo", "kind": "tensor", "from": "two:0", "to": "one"},
      {"id": "hi", "kind": "tensor", "from": "two:1", "to": "a:1"},
      {"id": "out", "kind": "tensor", "from": "one", "fetch": "y"},
      {"id": "g", "kind": "control", "to": "v"},
      {"id": "h", "kind": "variable", "from": "v", "to": "a:0"}]})"));
  const auto& p = sem.program();
  CHECK(p.node(*p.find_node("two")).op.fn->outputs == 2);
  CHECK(p.node(*p.find_node("one")).op.fn->inputs == 1);
  CHECK(p.node(*p.find_node("one")).op.fn->stateful);
  auto s = fire1(sem, sem.initial(), "two");
  CHECK(text(p, s, "lo") == "Shuffle.0(i32:[1,2],B)");
  s = fire1(sem, s, "one");
  CHECK(text(p, s, "out") == "Shuffle(Shuffle.0(i32:[1,2],B))");
  s = fire1(sem, fire1(sem, s, "v"), "a");
  CHECK(s.var_value[0].to_string() == "Scale(i32:1,Shuffle.1(i32:[1,2],B))");
}

TEST_CASE("S-FN with k = 0 and l = 0: NoOp only passes control") {
  Semantics sem(program_from(R"({
    "nodes": [{"id": "n", "op": "NoOp"}],
    "edges": [{"id": "go", "kind": "control", "to": "n"}, {"id": "done", "kind": "control", "from": "n"}]})"));
  const auto s = fire1(sem, sem.initial(), "n");
  CHECK(text(sem.program(), s, "done") == "GO");
}

TEST_CASE("S-NONDET: a relation f leads to one successor state per result") {
  Semantics sem(program_from(R"({
    "nodes": [{"id": "coin", "op": "Choice", "attrs": {"values": ["Heads", "Tails"]}}],
    "edges": [{"id": "go", "kind": "control", "to": "coin"}, {"id": "out", "kind": "tensor", "from": "coin"}]})"));
  const auto next = sem.fire(sem.initial(), node(sem.program(), "coin"));
  REQUIRE(next.size() == 2);
  CHECK(text(sem.program(), next[0], "out") == "Heads");
  CHECK(text(sem.program(), next[1], "out") == "Tails");
}

TEST_CASE("S-ERR-ASSIGN: an Assign-f whose tensor input is an error has no side effect") {
  Semantics sem(program_from(R"({
    "variables": {"x": [1]},
    "nodes": [{"id": "v", "op": "Var", "var": "x"}, {"id": "d", "op": "Div"}, {"id": "w", "op": "Write"}],
    "edges": [
      {"id": "g", "kind": "control", "to": "v"},
      {"id": "h", "kind": "variable", "from": "v", "to": "w:0"},
      {"id": "a", "kind": "tensor", "to": "d:0", "value": [1]},
      {"id": "b", "kind": "tensor", "to": "d:1", "value": [0]},
      {"id": "q", "kind": "tensor", "from": "d", "to": "w:1"}]})"));
  auto s = sem.initial();
  for (const char* n : {"v", "d"}) s = fire1(sem, s, n);
  CHECK(text(sem.program(), s, "q") == "error(domain: Div: integer division by zero or overflow)");
  s = fire1(sem, s, "w");
  CHECK(s.var_value[0].to_string() == "i32:[1]");
}

TEST_CASE("footnote 6: an uninitialized variable reads as an error; a Write initializes it") {
  const char* graph = R"({
    "variables": {"x": null},
    "nodes": [{"id": "v1", "op": "Var", "var": "x"}, {"id": "w", "op": "%s"},
              {"id": "v2", "op": "Var", "var": "x"}, {"id": "r", "op": "Read"}],
    "edges": [
      {"id": "g1", "kind": "control", "to": "v1"}, {"id": "g2", "kind": "control", "to": "v2"},
      {"id": "h1", "kind": "variable", "from": "v1", "to": "w:0"},
      {"id": "in", "kind": "tensor", "to": "w:1", "value": 4},
      {"id": "c", "kind": "control", "from": "w", "to": "r"},
      {"id": "h2", "kind": "variable", "from": "v2", "to": "r"},
      {"id": "y", "kind": "tensor", "from": "r", "fetch": "y"}]})";
  auto outcomes = [&](const char* op) {
    char buf[1024];
    std::snprintf(buf, sizeof buf, graph, op);
    Semantics sem(program_from(buf));
    std::set<std::string> out;
    test::all_outputs(sem, sem.initial(), out);
    return out;
  };
  CHECK(outcomes("Write") == std::set<std::string>{"y=i32:4"});
  CHECK(outcomes("Assign-Add") == std::set<std::string>{"y=error(uninitialized: variable 'x' is not initialized)"});
}

TEST_CASE("S-STUCK: a terminal state in which a node never fired names it and what it waits for") {
  Semantics sem(program_from(kAssignThenRead));
  const auto& p = sem.program();
  auto s = sem.initial();
  s.put({edge(p, "in")}, Empty{});  // as if the feed had never arrived
  s = fire1(sem, s, "v1");
  REQUIRE(sem.terminal(s));
  const auto stuck = sem.stuck(s);
  REQUIRE(stuck.size() == 3);  // v1 fired; add, v2 and r never did
  CHECK(stuck[0].transition == node(p, "add"));
  REQUIRE(stuck[0].waiting_on.size() == 1);
  CHECK(stuck[0].waiting_on[0].reason == "incoming tensor edge 'in' is EMPTY (an input edge, already consumed)");
  CHECK(stuck[1].transition == node(p, "v2"));
}

TEST_CASE("S-SESSION: VarValue persists across runs, InTransit starts afresh") {
  Semantics sem(program_from(kAssignThenRead));
  auto s = sem.initial();
  for (int run = 1; run <= 3; ++run) {
    if (run > 1) s = sem.next_run(s);
    CHECK(text(sem.program(), s, "in") == "i32:[5]");
    for (const char* n : {"v1", "add", "v2", "r"}) s = fire1(sem, s, n);
  }
  CHECK(s.var_value[0].to_string() == "i32:[25]");
  CHECK(text(sem.program(), s, "y") == "i32:[25]");
}

TEST_CASE("each node fires exactly once: after firing, a node is never enabled again") {
  Semantics sem(program_from(kAssignThenRead));
  auto s = sem.initial();
  std::vector<Transition> seen;
  while (!sem.terminal(s)) {
    const auto t = sem.enabled_transitions(s).front();
    CHECK(std::find(seen.begin(), seen.end(), t) == seen.end());
    seen.push_back(t);
    s = sem.fire(s, t)[0];
    CHECK(s.has_fired(t.node, t.context));  // C-ONCE
    CHECK_FALSE(sem.enabled(s, t));
  }
  CHECK(seen.size() == sem.program().nodes().size());
}

TEST_CASE("the independence data: which variable each node reads or updates") {
  Semantics sem(program_from(kAssignThenRead));
  const auto& p = sem.program();
  CHECK(sem.access(node(p, "add").node).kind == Access::Kind::update);
  CHECK(sem.access(node(p, "r").node).kind == Access::Kind::read);
  CHECK(sem.access(node(p, "r").node).var == *p.find_variable("x"));
  CHECK(sem.access(node(p, "v1").node).kind == Access::Kind::none);
}

// S-DEREF (TensorFlow 1's references): Mul takes x's handle on port 0 and
// reads VarValue(x) when it fires, after or before the Assign-Add.
const char* kDeref = R"({
  "name": "deref",
  "variables": {"x": [10]},
  "nodes": [
    {"id": "v1", "op": "Var", "var": "x"}, {"id": "mul", "op": "Mul"},
    {"id": "v2", "op": "Var", "var": "x"}, {"id": "add", "op": "Assign-Add"}],
  "edges": [
    {"id": "g1", "kind": "control", "to": "v1"},
    {"id": "h1", "kind": "variable", "from": "v1", "to": "mul:0"},
    {"id": "two", "kind": "tensor", "to": "mul:1", "value": [2]},
    {"id": "y", "kind": "tensor", "from": "mul", "fetch": "y"},
    {"id": "g2", "kind": "control", "to": "v2"},
    {"id": "h2", "kind": "variable", "from": "v2", "to": "add:0"},
    {"id": "in", "kind": "tensor", "to": "add:1", "value": [5]}]})";

TEST_CASE("S-DEREF: a function dereferences its variable edge when it fires, and is a reader of x") {
  Semantics sem(program_from(kDeref));
  const auto& p = sem.program();
  CHECK(sem.access(node(p, "mul").node).kind == Access::Kind::read);
  CHECK(sem.access(node(p, "mul").node).var == *p.find_variable("x"));
  const auto ready = fire1(sem, fire1(sem, sem.initial(), "v1"), "v2");
  CHECK(sem.enabled(ready, node(p, "mul")));
  // Before the update: 10 * 2; after it: (10 + 5) * 2.
  const auto before = fire1(sem, ready, "mul");
  CHECK(text(p, before, "y") == "i32:[20]");
  CHECK(is_empty(at(p, before, "h1")));
  CHECK(is_empty(at(p, before, "two")));
  CHECK(before.var_value == ready.var_value);
  const auto after = fire1(sem, fire1(sem, ready, "add"), "mul");
  CHECK(text(p, after, "y") == "i32:[30]");
}

TEST_CASE("S-DEREF: a function takes one variable edge at most") {
  CHECK_THROWS_WITH_AS(program_from(R"({
    "variables": {"x": [1]},
    "nodes": [{"id": "v1", "op": "Var", "var": "x"}, {"id": "v2", "op": "Var", "var": "x"}, {"id": "add", "op": "Add"}],
    "edges": [
      {"id": "g1", "kind": "control", "to": "v1"}, {"id": "g2", "kind": "control", "to": "v2"},
      {"id": "h1", "kind": "variable", "from": "v1", "to": "add:0"},
      {"id": "h2", "kind": "variable", "from": "v2", "to": "add:1"},
      {"id": "y", "kind": "tensor", "from": "add"}]})"),
      doctest::Contains("input port 1 of node 'add' takes a tensor edge, not a variable edge"), InputError);
}
