// The partitioner (X-PARTITION): a Send/Recv pair on each edge across devices,
// one Recv per (device, value), control edges carried by a dummy tensor.
#include <doctest/doctest.h>

#include "semantics/diagnostic.hpp"
#include "semantics/partition.hpp"
#include "support/graphs.hpp"

#include <algorithm>

using namespace tfsem;

namespace {

// c on ps, its value shared by a Copy chain with b0, b1 (worker) and a (ps);
// a control edge from c to b0 and b1.
const char* kShared = R"({
  "name": "shared",
  "nodes": [
    {"id": "c", "op": "Const", "attrs": {"value": 2}, "device": "ps"},
    {"id": "copy1", "op": "Copy", "device": "worker"}, {"id": "copy2", "op": "Copy", "device": "worker"},
    {"id": "a", "op": "Neg", "device": "ps"},
    {"id": "b0", "op": "Neg", "device": "worker"}, {"id": "b1", "op": "Identity", "device": "worker"}],
  "edges": [
    {"id": "go", "kind": "control", "to": "c", "value": "GO"},
    {"id": "c:0", "kind": "tensor", "from": "c", "to": "copy1"},
    {"id": "copy1:0", "kind": "tensor", "from": "copy1:0", "to": "b0"},
    {"id": "copy1:1", "kind": "tensor", "from": "copy1:1", "to": "copy2"},
    {"id": "copy2:0", "kind": "tensor", "from": "copy2:0", "to": "a"},
    {"id": "copy2:1", "kind": "tensor", "from": "copy2:1", "to": "b1"},
    {"id": "^c->b0", "kind": "control", "from": "c", "to": "b0"},
    {"id": "^c->b1", "kind": "control", "from": "c", "to": "b1"},
    {"id": "ya", "kind": "tensor", "from": "a"}, {"id": "y0", "kind": "tensor", "from": "b0"},
    {"id": "y1", "kind": "tensor", "from": "b1"}]})";

ProgramSpec spec_of(const char* json) { return format::parse_program(nlohmann::json::parse(json)); }

std::size_t count_op(const ProgramSpec& s, const char* op) {
  return static_cast<std::size_t>(std::count_if(s.nodes.begin(), s.nodes.end(), [&](const NodeSpec& n) { return n.op == op; }));
}
const NodeSpec& node(const ProgramSpec& s, const char* id) {
  return *std::find_if(s.nodes.begin(), s.nodes.end(), [&](const NodeSpec& n) { return n.id == id; });
}
const EdgeSpec& edge(const ProgramSpec& s, const char* id) {
  return *std::find_if(s.edges.begin(), s.edges.end(), [&](const EdgeSpec& e) { return e.id == id; });
}

// The outputs of the one behaviour of a deterministic graph without variables.
std::string outputs_of(const ProgramSpec& s) {
  Semantics sem(Program::build(s));
  auto state = sem.initial();
  for (auto next = sem.enabled_transitions(state); !next.empty(); next = sem.enabled_transitions(state))
    state = sem.fire(state, next[0]).at(0);
  CHECK(sem.stuck(state).empty());
  return test::outputs_text(sem.program(), state);
}

}  // namespace

TEST_CASE("X-PARTITION: one Recv per device a value is read on, feeding every consumer there") {
  const auto out = partition(spec_of(kShared), {});
  Program::build(out);
  CHECK(count_op(out, "Send") == 2);  // the value, and the control edges' dummy tensor
  CHECK(count_op(out, "Recv") == 2);
  CHECK(count_op(out, "Copy") == 1);  // a on ps and the Send share c's value
  const auto& key = edge(out, "ps;worker;c:0");
  CHECK(key.from->node == "send/ps;worker;c_0");
  CHECK(key.to->node == "recv/ps;worker;c_0");
  CHECK(node(out, "send/ps;worker;c_0").device == "ps");
  CHECK(node(out, "recv/ps;worker;c_0").device == "worker");
  CHECK(edge(out, "copy1:0").from->node == "recv/ps;worker;c_0");  // b0 and b1 keep their edges' ids
  CHECK(edge(out, "copy2:1").from->node == "recv/ps;worker;c_0");
  CHECK(edge(out, "copy1:0").from->port != edge(out, "copy2:1").from->port);
  // The control edges: a dummy Const on ps that c triggers, a pair, the Recv's control edges.
  CHECK(node(out, "dummy/ps;worker;^c").op == "Const");
  CHECK(edge(out, "ps;worker;^c").to->node == "recv/ps;worker;^c");
  CHECK(edge(out, "^c->b0").from->node == "recv/ps;worker;^c");
  CHECK(edge(out, "^c->b1").from->node == "recv/ps;worker;^c");
  CHECK(outputs_of(out) == outputs_of(spec_of(kShared)));
}

TEST_CASE("X-PARTITION: nothing to cut on one device; every edge cut with --every-edge") {
  PartitionOptions one{.devices = {"cpu"}, .assign = PartitionOptions::Assign::round_robin};
  const auto same = partition(spec_of(kShared), one);
  CHECK(count_op(same, "Send") == 0);
  CHECK(same.edges.size() == spec_of(kShared).edges.size());
  CHECK(std::all_of(same.nodes.begin(), same.nodes.end(), [](const NodeSpec& n) { return n.device == "cpu"; }));
  one.every_edge = true;
  const auto every = partition(spec_of(kShared), one);
  CHECK(count_op(every, "Send") == 2);  // c's value on cpu (one Recv for a, b0, b1), its control edges
  CHECK(count_op(every, "Copy") == 0);
  CHECK(outputs_of(every) == outputs_of(spec_of(kShared)));
}

TEST_CASE("X-PARTITION: round-robin places nodes in turn; a variable's consumers stay on its device") {
  const auto p = test::program_file("models/first-example.json");
  PartitionOptions two{.devices = {"d0", "d1"}, .assign = PartitionOptions::Assign::round_robin};
  const auto out = partition(p->spec(), two);
  const auto built = Program::build(out);
  // An edge between two devices is a rendezvous; the others, a variable's included, stay on one.
  for (const auto& e : built->edges()) {
    if (e.is_input() || e.is_output()) continue;
    const bool rendezvous = built->node(e.src).op.kind == OpKind::send;
    CHECK((out.nodes[e.src.index()].device == out.nodes[e.dst.index()].device) != rendezvous);
  }
  CHECK(count_op(out, "Send") > 0);
}

TEST_CASE("X-PARTITION, G-DEVICE: a node without a device, or a bad device, is refused") {
  auto spec = spec_of(kShared);
  spec.nodes[3].device = "";
  try {
    partition(spec, {});
    FAIL("no error");
  } catch (const InputError& e) {
    REQUIRE(e.diagnostics().size() == 1);
    CHECK(e.diagnostics()[0].rule == "G-DEVICE");
    CHECK(e.diagnostics()[0].subject == "node 'a'");
  }
  CHECK_THROWS_AS(partition(spec_of(kShared), {.devices = {"a;b"}}), InputError);
  CHECK_THROWS_AS(partition(spec_of(kShared), {.assign = PartitionOptions::Assign::round_robin}), InputError);
}
