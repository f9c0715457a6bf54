// Send and Recv (S-SEND, S-RECV), their validation (G-RENDEZVOUS) and devices
// (G-DEVICE).
#include <doctest/doctest.h>

#include "semantics/device.hpp"
#include "semantics/diagnostic.hpp"
#include "support/graphs.hpp"

using namespace tfsem;
using test::program_from;

namespace {

// input a -> Send -(rendezvous)-> Recv -> y0, y1: one Recv for both consumers.
const char* kPair = R"({
  "name": "pair",
  "nodes": [{"id": "s", "op": "Send", "device": "ps"}, {"id": "r", "op": "Recv", "device": "/job:worker/task:0/device:CPU:0"}],
  "edges": [
    {"id": "a", "kind": "tensor", "to": "s", "value": 3},
    {"id": "ps;worker;a", "kind": "tensor", "from": "s", "to": "r"},
    {"id": "y0", "kind": "tensor", "from": "r:0"},
    {"id": "y1", "kind": "tensor", "from": "r:1"}]})";

// Var(x) -> Send: the copy of x taken when the Send fires; an Assign-Add of x
// may come before or after it.
const char* kCopyOfReference = R"({
  "name": "copy-of-reference",
  "variables": {"x": 1},
  "nodes": [{"id": "v", "op": "Var", "var": "x"}, {"id": "s", "op": "Send"}, {"id": "r", "op": "Recv"},
            {"id": "v2", "op": "Var", "var": "x"}, {"id": "add", "op": "Assign-Add"}],
  "edges": [
    {"id": "go", "kind": "control", "to": "v", "value": "GO"},
    {"id": "h", "kind": "variable", "from": "v", "to": "s"},
    {"id": "key", "kind": "tensor", "from": "s", "to": "r"},
    {"id": "y", "kind": "tensor", "from": "r"},
    {"id": "go2", "kind": "control", "to": "v2", "value": "GO"},
    {"id": "h2", "kind": "variable", "from": "v2", "to": "add:0"},
    {"id": "one", "kind": "tensor", "to": "add:1", "value": 10}]})";

// Switch(d, false): the value goes to output 0, DEAD through the pair on output 1.
const char* kDeadPair = R"({
  "name": "dead-pair",
  "nodes": [{"id": "sw", "op": "Switch"}, {"id": "s", "op": "Send"}, {"id": "r", "op": "Recv"}],
  "edges": [
    {"id": "d", "kind": "tensor", "to": "sw:0", "value": 1},
    {"id": "p", "kind": "tensor", "to": "sw:1", "value": false},
    {"id": "f", "kind": "tensor", "from": "sw:0"},
    {"id": "t", "kind": "tensor", "from": "sw:1", "to": "s"},
    {"id": "key", "kind": "tensor", "from": "s", "to": "r"},
    {"id": "y", "kind": "tensor", "from": "r", "fetch": "y"}]})";

std::string text(const Program& p, const State& s, const char* e) { return content_to_string(p, s.at(*p.find_edge(e))); }

std::vector<Diagnostic> problems(const std::string& json) {
  try {
    program_from(json);
  } catch (const InputError& e) {
    return e.diagnostics();
  }
  return {};
}

}  // namespace

TEST_CASE("S-SEND, S-RECV: a Recv is enabled once its Send has fired, and gives its value to every consumer") {
  Semantics sem(program_from(kPair));
  const auto& p = sem.program();
  auto s = sem.initial();
  const Transition send{*p.find_node("s")}, recv{*p.find_node("r")};
  CHECK(sem.enabled(s, send));
  CHECK_FALSE(sem.enabled(s, recv));
  CHECK(sem.why_not_enabled(s, recv)[0].reason == "incoming tensor edge 'ps;worker;a' is EMPTY (node 's' has not fired)");
  s = sem.fire(s, send).at(0);
  CHECK(text(p, s, "ps;worker;a") == "i32:3");
  CHECK(sem.enabled(s, recv));
  s = sem.fire(s, recv).at(0);
  CHECK(is_empty(s.at(*p.find_edge("ps;worker;a"))));
  CHECK(text(p, s, "y0") == "i32:3");
  CHECK(text(p, s, "y1") == "i32:3");
  CHECK(sem.terminal(s));
  CHECK(p.spec().nodes[0].device == "ps");
}

TEST_CASE("S-SEND: a Send of a variable edge copies the value the variable holds when it fires") {
  Semantics sem(program_from(kCopyOfReference));
  const auto& p = sem.program();
  CHECK(p.variable_of(*p.find_node("s")) == p.find_variable("x"));
  const auto before = test::run(sem, "v,s,v2,add,r");
  CHECK(text(p, before, "y") == "i32:1");
  CHECK(before.var_value[0].to_string() == "i32:11");
  const auto after = test::run(sem, "v2,add,v,s,r");
  CHECK(text(p, after, "y") == "i32:11");
}

TEST_CASE("S-SEND, S-RECV, C-DEAD: DEAD passes through a Send and its Recv") {
  Semantics sem(program_from(kDeadPair));
  const auto& p = sem.program();
  const auto s = test::run(sem, "sw,s,r");
  CHECK(text(p, s, "f") == "i32:1");
  CHECK(text(p, s, "y") == "DEAD");
  CHECK(sem.stuck(s).empty());
}

TEST_CASE("G-RENDEZVOUS: a Send's output goes to a Recv, a Recv's input comes from a Send") {
  // A graph a -> FIRST -k-> SECOND -> y: each problem's rule and subject.
  const auto chain = [](const char* first_op, const char* second_op) {
    const auto json = std::string(R"({"nodes": [{"id": "n1", "op": ")") + first_op + R"("}, {"id": "n2", "op": ")" +
                      second_op + R"("}], "edges": [{"id": "a", "kind": "tensor", "to": "n1", "value": 1},
      {"id": "k", "kind": "tensor", "from": "n1", "to": "n2"}, {"id": "y", "kind": "tensor", "from": "n2"}]})";
    std::string found;
    for (const auto& d : problems(json)) found += (found.empty() ? "" : "; ") + d.rule + " " + d.subject;
    return found;
  };
  CHECK(chain("Send", "Identity") == "G-RENDEZVOUS node 'n1'");
  CHECK(chain("Identity", "Recv") == "G-RENDEZVOUS node 'n2'");
  CHECK(chain("Send", "Send") == "G-RENDEZVOUS node 'n1'; G-RENDEZVOUS node 'n2'");
  CHECK(chain("Recv", "Recv") == "G-RENDEZVOUS node 'n1'; G-RENDEZVOUS node 'n2'");
  CHECK(chain("Send", "Recv").empty());
  const auto two_inputs = problems(R"({"nodes": [{"id": "s", "op": "Send"}, {"id": "r", "op": "Recv"}],
    "edges": [{"id": "a", "kind": "tensor", "to": "s:0", "value": 1}, {"id": "b", "kind": "tensor", "to": "s:1", "value": 1},
              {"id": "k", "kind": "tensor", "from": "s", "to": "r"}, {"id": "y", "kind": "tensor", "from": "r"}]})");
  REQUIRE(!two_inputs.empty());
  CHECK(two_inputs[0].rule == "G-ARITY");
}

TEST_CASE("G-DEVICE: a device is a short name or a TensorFlow device name") {
  for (const char* ok : {"", "ps", "worker0", "gpu_1", "/job:ps/replica:0/task:0/device:CPU:0", "/job:worker/task:1",
                         "/gpu:0", "/device:GPU:*", "/job:localhost/device:TPU"})
    CHECK_MESSAGE(device_problem(ok).empty(), ok);
  for (const char* bad : {"0ps", "ps;worker", "/", "/job:", "/job:ps/", "/task:x", "/job:ps//task:0", "/device:", "a b"})
    CHECK_MESSAGE(!device_problem(bad).empty(), bad);
  const auto d = problems(R"({"nodes": [{"id": "c", "op": "Const", "attrs": {"value": 1}, "device": "/job:ps/bogus"}],
    "edges": [{"id": "g", "kind": "control", "to": "c", "value": "GO"}, {"id": "y", "kind": "tensor", "from": "c"}]})");
  REQUIRE(d.size() == 1);
  CHECK(d[0].rule == "G-DEVICE");
  CHECK(d[0].subject == "node 'c'");
  CHECK(d[0].where == "/nodes/0");
  CHECK(d[0].message == "device '/job:ps/bogus': '/bogus' is not a part of a TensorFlow device name (/job:NAME, /replica:N, "
                        "/task:N, /device:TYPE:N, /TYPE:N)");
}

TEST_CASE("G-DEVICE: a node's device is written back as it was read") {
  const auto p = program_from(kPair);
  const auto j = format::program_to_json(p->spec());
  CHECK(j["nodes"][0]["device"] == "ps");
  CHECK(j["nodes"][1]["device"] == "/job:worker/task:0/device:CPU:0");
  CHECK(format::parse_program(j).nodes[1].device == "/job:worker/task:0/device:CPU:0");
}
