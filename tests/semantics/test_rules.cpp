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

TEST_CASE("V-TENSORS: dense tensors of every dtype and shape, terms and error elements travel on tensor edges; GO is none") {
  Semantics sem(program_from(R"({
    "nodes": [{"id": "f32", "op": "Identity"}, {"id": "f64", "op": "Identity"}, {"id": "i64", "op": "Identity"},
              {"id": "b", "op": "Identity"}, {"id": "term", "op": "Add"}, {"id": "err", "op": "Identity"},
              {"id": "done", "op": "NoOp"}],
    "edges": [
      {"id": "in_f32", "kind": "tensor", "to": "f32", "value": [[1.5, 2.5]]},
      {"id": "in_f64", "kind": "tensor", "to": "f64", "value": {"dtype": "f64", "value": 0.25}},
      {"id": "in_i64", "kind": "tensor", "to": "i64", "value": {"dtype": "i64", "shape": [2], "fill": 3}},
      {"id": "in_b", "kind": "tensor", "to": "b", "value": [true, false]},
      {"id": "in_atom", "kind": "tensor", "to": "term:0", "value": "A"},
      {"id": "in_one", "kind": "tensor", "to": "term:1", "value": 1},
      {"id": "in_err", "kind": "tensor", "to": "err", "value": {"error": "domain", "message": "m"}},
      {"id": "go", "kind": "control", "to": "done"},
      {"id": "y_f32", "kind": "tensor", "from": "f32"}, {"id": "y_f64", "kind": "tensor", "from": "f64"},
      {"id": "y_i64", "kind": "tensor", "from": "i64"}, {"id": "y_b", "kind": "tensor", "from": "b"},
      {"id": "y_term", "kind": "tensor", "from": "term"}, {"id": "y_err", "kind": "tensor", "from": "err"},
      {"id": "after", "kind": "control", "from": "done"}]})"));
  const auto& p = sem.program();
  auto s = sem.initial();
  CHECK(std::holds_alternative<Go>(at(p, s, "go")));  // GO is a content, not an element of Tensors
  for (const char* n : {"f32", "f64", "i64", "b", "term", "err", "done"}) s = fire1(sem, s, n);
  const std::pair<const char*, const char*> expected[] = {
      {"y_f32", "f32:[[1.5,2.5]]"}, {"y_f64", "f64:0.25"}, {"y_i64", "i64:[3,3]"},
      {"y_b", "bool:[true,false]"}, {"y_term", "Add(A,i32:1)"}, {"y_err", "error(domain: m)"}};
  for (const auto& [e, value] : expected) {
    CAPTURE(e);
    REQUIRE(std::holds_alternative<Tensor>(at(p, s, e)));
    CHECK(text(p, s, e) == value);
  }
  CHECK(std::get<Tensor>(at(p, s, "y_f32")).as_dense().shape == Shape{1, 2});
  CHECK(std::get<Tensor>(at(p, s, "y_term")).is_term());
  CHECK(std::get<Tensor>(at(p, s, "y_err")).is_error());
  CHECK(std::holds_alternative<Go>(at(p, s, "after")));
}

TEST_CASE("V-ERROR: a function's failure is an error element on its output edge, of its kind, not a refusal to fire") {
  Semantics sem(program_from(R"({
    "nodes": [{"id": "shape", "op": "Add"}, {"id": "dtype", "op": "Add"}, {"id": "domain", "op": "Div"}],
    "edges": [
      {"id": "a0", "kind": "tensor", "to": "shape:0", "value": [1, 2]},
      {"id": "a1", "kind": "tensor", "to": "shape:1", "value": [1, 2, 3]},
      {"id": "b0", "kind": "tensor", "to": "dtype:0", "value": [1]},
      {"id": "b1", "kind": "tensor", "to": "dtype:1", "value": [1.0]},
      {"id": "c0", "kind": "tensor", "to": "domain:0", "value": 1},
      {"id": "c1", "kind": "tensor", "to": "domain:1", "value": 0},
      {"id": "y_shape", "kind": "tensor", "from": "shape", "fetch": "shape"},
      {"id": "y_dtype", "kind": "tensor", "from": "dtype", "fetch": "dtype"},
      {"id": "y_domain", "kind": "tensor", "from": "domain", "fetch": "domain"}]})"));
  const auto& p = sem.program();
  auto s = sem.initial();
  for (const char* n : {"shape", "dtype", "domain"}) s = fire1(sem, s, n);
  const std::pair<const char*, ErrorKind> expected[] = {
      {"y_shape", ErrorKind::shape_mismatch}, {"y_dtype", ErrorKind::dtype_mismatch}, {"y_domain", ErrorKind::domain}};
  for (const auto& [e, kind] : expected) {
    CAPTURE(e);
    const auto& t = std::get<Tensor>(at(p, s, e));
    REQUIRE(t.is_error());
    CHECK(t.as_error().kind == kind);
  }
  CHECK(sem.terminal(s));
  CHECK(sem.stuck(s).empty());
  CHECK(test::outputs_text(p, s) ==
        "shape=error(shape mismatch: Add: shapes [2] and [3]) dtype=error(dtype mismatch: Add: dtypes i32 and f32) "
        "domain=error(domain: Div: integer division by zero or overflow)");
}

TEST_CASE("V-UNINIT: a variable declared null starts as the error uninitialized; one with a value starts with it") {
  Semantics sem(program_from(R"({
    "variables": {"x": null, "y": 3},
    "nodes": [{"id": "v", "op": "Var", "var": "x"}, {"id": "r", "op": "Read"}],
    "edges": [
      {"id": "g", "kind": "control", "to": "v"},
      {"id": "h", "kind": "variable", "from": "v", "to": "r"},
      {"id": "out", "kind": "tensor", "from": "r", "fetch": "x"}]})"));
  const auto& p = sem.program();
  const auto s = sem.initial();
  const auto& x = s.var_value[p.find_variable("x")->index()];
  REQUIRE(x.is_error());
  CHECK(x.as_error().kind == ErrorKind::uninitialized);
  CHECK(s.var_value[p.find_variable("y")->index()].to_string() == "i32:3");
  CHECK(text(p, fire1(sem, fire1(sem, s, "v"), "r"), "out") == "error(uninitialized: variable 'x' is not initialized)");
}

TEST_CASE("S-STATE: a state is VarValue and InTransit alone; two orders of independent steps reach one state") {
  Semantics sem(test::program_file("models/first-example-no-control.json"));
  const auto& p = sem.program();
  const auto a = fire1(sem, fire1(sem, sem.initial(), "var_top"), "var_bottom");
  const auto b = fire1(sem, fire1(sem, sem.initial(), "var_bottom"), "var_top");
  CHECK(a == b);
  CHECK(a.hash() == b.hash());
  CHECK(a.var_value.size() == p.variables().size());
  // InTransit holds each non-EMPTY edge; a consumed edge is EMPTY, so no slot of it is left.
  for (const auto& [slot, content] : a.in_transit) CHECK_FALSE(is_empty(content));
  CHECK(a.in_transit.size() == 3);  // each Var's handle, and the Write's tensor input B
  // The Write changes VarValue and nothing else but its edges; a different VarValue is a different state.
  const auto written = fire1(sem, a, "write");
  CHECK_FALSE(written.var_value == a.var_value);
  CHECK_FALSE(written == a);
}

TEST_CASE("S-ERR-PROP: an error goes on through every function that uses it, and an ignored argument is not inspected") {
  Semantics sem(program_from(R"({
    "nodes": [{"id": "add", "op": "Add"}, {"id": "copy", "op": "Copy"}, {"id": "neg", "op": "Neg"},
              {"id": "mul", "op": "Mul"}, {"id": "snd", "op": "Snd"}],
    "edges": [
      {"id": "a", "kind": "tensor", "to": "add:0", "value": [1, 2]},
      {"id": "b", "kind": "tensor", "to": "add:1", "value": [1, 2, 3]},
      {"id": "e", "kind": "tensor", "from": "add", "to": "copy"},
      {"id": "e0", "kind": "tensor", "from": "copy:0", "to": "neg"},
      {"id": "e1", "kind": "tensor", "from": "copy:1", "to": "snd:0"},
      {"id": "ne", "kind": "tensor", "from": "neg", "to": "mul:0"},
      {"id": "zero", "kind": "tensor", "to": "mul:1", "value": 0},
      {"id": "five", "kind": "tensor", "to": "snd:1", "value": 5},
      {"id": "y_mul", "kind": "tensor", "from": "mul", "fetch": "mul"},
      {"id": "y_snd", "kind": "tensor", "from": "snd", "fetch": "snd"}]})"));
  const auto& p = sem.program();
  auto s = fire1(sem, sem.initial(), "add");
  const auto error = text(p, s, "e");
  CHECK(error == "error(shape mismatch: Add: shapes [2] and [3])");
  for (const char* n : {"copy", "neg", "mul", "snd"}) s = fire1(sem, s, n);
  CHECK(text(p, s, "y_mul") == error);  // not caught, not even by a multiplication by zero
  CHECK(text(p, s, "y_snd") == "i32:5");  // Snd ignores its first argument
}

TEST_CASE("S-TERMINAL: a state is terminal exactly when no transition is enabled, whether or not every node fired") {
  // Every reachable state of a graph whose runs all complete: terminal exactly when every node has fired.
  Semantics sem(test::program_file("models/first-example-no-control.json"));
  std::vector<State> todo{sem.initial()};
  std::unordered_set<State> seen{todo.back()};
  int terminal = 0;
  while (!todo.empty()) {
    const auto s = todo.back();
    todo.pop_back();
    const bool all_fired = s.fired.size() == sem.program().nodes().size();
    CHECK(sem.terminal(s) == all_fired);
    CHECK(sem.terminal(s) == sem.enabled_transitions(s).empty());
    terminal += sem.terminal(s);
    for (auto t : sem.enabled_transitions(s))
      for (auto& next : sem.fire(s, t))
        if (seen.insert(next).second) todo.push_back(std::move(next));
  }
  CHECK(terminal == 2);  // y = A and y = B
  // A state with nodes that never fired, and nothing enabled, is terminal too (and they are stuck, S-STUCK).
  Semantics blocked(program_from(kAssignThenRead));
  auto s = blocked.initial();
  s.put({edge(blocked.program(), "in")}, Empty{});
  CHECK_FALSE(blocked.terminal(s));
  s = fire1(blocked, s, "v1");
  CHECK(blocked.terminal(s));
  CHECK_FALSE(blocked.stuck(s).empty());
}
