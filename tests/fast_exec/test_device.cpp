// The executor with an accelerator, emulated in host memory
// (support/emulated_device.hpp), so that placement, the copies on edges that
// cross devices, variables resident across runs and falling back to the host
// are checked on every machine. The CUDA device itself: tests/gpu/.
#include <doctest/doctest.h>

#include "conformance/conform.hpp"
#include "models/generate/random_graph.hpp"
#include "support/emulated_device.hpp"
#include "support/graphs.hpp"

using namespace tfsem;

namespace {

conform::Options on_accelerator(std::shared_ptr<fast_exec::Device> d, std::size_t runs) {
  conform::Options o;
  o.runs = runs;
  o.exec.threads = 2;
  o.exec.perturb_seed = 7;
  o.exec.accelerator = std::move(d);
  return o;
}

}  // namespace

TEST_CASE("every model of the section 3 core conforms with an accelerator") {
  auto device = std::make_shared<test::EmulatedDevice>();
  for (const auto& p : test::core_models()) {
    CAPTURE(p->name());
    const auto report = conform::conform(p, on_accelerator(device, 20));
    CHECK(report.conforms());
  }
  CHECK(device->kernels > 0);
}

TEST_CASE("control flow runs on the host and kernels on the accelerator: every loop and recursive model conforms") {
  auto device = std::make_shared<test::EmulatedDevice>();
  for (const auto& p : test::executable_models()) {
    if (!p->has_control_flow()) continue;
    CAPTURE(p->name());
    const auto report = conform::conform(p, on_accelerator(device, 5));
    CHECK(report.conforms());
    fast_exec::ExecOptions o;
    o.accelerator = device;
    const fast_exec::Executor executor(p, o);
    for (std::size_t n = 0; n < p->nodes().size(); ++n) {
      const auto kind = p->node(NodeId(n)).op.kind;
      if (kind != OpKind::function && kind != OpKind::read && kind != OpKind::assign) CHECK_FALSE(executor.placement().on_accelerator[n]);
    }
  }
  CHECK(device->kernels > 0);
}

TEST_CASE("arguments outside the kernel are computed on the host: the semantics' error element") {
  const auto p = test::program_from(R"({"name": "mismatch", "nodes": [{"id": "add", "op": "Add"}],
    "edges": [{"kind": "tensor", "id": "a", "to": "add:0", "value": {"dtype": "i32", "value": [1, 2]}},
              {"kind": "tensor", "id": "b", "to": "add:1", "value": {"dtype": "i32", "value": [1, 2, 3]}}, {"kind": "tensor", "from": "add", "id": "y"}]})");
  auto device = std::make_shared<test::EmulatedDevice>();
  fast_exec::ExecOptions o;
  o.accelerator = device;
  fast_exec::Executor executor(p, o);
  CHECK(executor.placement().on_accelerator[0]);
  const auto r = executor.run();
  CAPTURE(content_to_string(*p, r.fetched.at(0)));
  CHECK(std::get<Tensor>(r.fetched.at(0)).is_error());
  CHECK(device->declined == 1);
}

TEST_CASE("300 fuzzed graphs conform with an accelerator") {
  auto device = std::make_shared<test::EmulatedDevice>();
  for (std::uint64_t seed = 1; seed <= 300; ++seed) {
    CAPTURE(seed);
    CHECK(conform::conform(Program::build(generate::random_graph(seed)), on_accelerator(device, 2)).conforms());
  }
}

TEST_CASE("placement: the kernels on the accelerator, copies only where an edge crosses devices") {
  // Figure 4: x = Var; write (Assign of a constant), two Read/Add/Write replicas, a final Read.
  const auto p = test::program_file("models/figure-4-lost-update.json");
  fast_exec::ExecOptions o;
  o.accelerator = std::make_shared<test::EmulatedDevice>();
  fast_exec::Executor executor(p, o);
  const auto& pl = executor.placement();
  REQUIRE(pl.resident.size() == 1);
  CHECK(pl.resident[0]);
  for (std::size_t n = 0; n < p->nodes().size(); ++n) {
    CAPTURE(p->node(NodeId(n)).name());
    const auto& node = p->node(NodeId(n));
    // Var(x) hands out a handle on the host; the emulated device has no Project.
    const bool host = node.op.kind == Op::Kind::var || (node.op.fn != nullptr && node.op.fn->name == "Project");
    CHECK(pl.on_accelerator[n] == !host);
  }
  // Up: each tensor edge from the host (an input edge included) to the
  // accelerator. Down: each one the other way, each fetch made on the
  // accelerator, and VarValue.
  std::uint64_t up = 0, down = 1;
  auto on = [&](NodeId n) { return n.valid() && pl.on_accelerator[n.index()]; };
  for (const auto& e : p->edges()) {
    if (e.kind != EdgeKind::tensor) continue;
    if (e.is_output()) down += on(e.src) ? 1 : 0;
    else if (on(e.dst) != on(e.src)) (on(e.dst) ? up : down) += 1;
  }
  const auto r = executor.run();
  CHECK(r.uploads == up);
  CHECK(r.downloads == down);
}

TEST_CASE("constants without outputs, and with two, beside ones placed on the accelerator") {
  // A NoOp is a constant with an empty tuple: one whose control edge feeds an
  // Add on the accelerator stays on the host (its empty tuple has nothing to
  // upload), and the constants' tuples, lying end to end, keep their values.
  const auto p = test::program_from(R"({
    "functions": {"Pair": {}},
    "nodes": [{"id": "n0", "op": "NoOp"},
              {"id": "c1", "op": "Const", "attrs": {"value": {"dtype": "i32", "value": [1, 2]}}},
              {"id": "pair", "op": "Pair"},
              {"id": "c2", "op": "Const", "attrs": {"value": {"dtype": "i32", "value": [3, 4]}}},
              {"id": "add", "op": "Add"}],
    "edges": [
      {"id": "g0", "kind": "control", "to": "n0", "value": "GO"},
      {"id": "k1", "kind": "control", "from": "n0", "to": "c1"}, {"id": "k2", "kind": "control", "from": "n0", "to": "c2"},
      {"id": "k3", "kind": "control", "from": "n0", "to": "pair"}, {"id": "k4", "kind": "control", "from": "n0", "to": "add"},
      {"id": "a", "kind": "tensor", "from": "c1", "to": "add:0"}, {"id": "b", "kind": "tensor", "from": "c2", "to": "add:1"},
      {"id": "y", "kind": "tensor", "from": "add"},
      {"id": "p0", "kind": "tensor", "from": "pair:0"}, {"id": "p1", "kind": "tensor", "from": "pair:1"}]})");
  fast_exec::ExecOptions o;
  o.accelerator = std::make_shared<test::EmulatedDevice>();
  fast_exec::Executor executor(p, o);
  const auto on = [&](const char* name) { return executor.placement().on_accelerator[p->find_node(name)->index()]; };
  CHECK(!on("n0"));
  CHECK(on("add"));
  const auto r = executor.run();
  REQUIRE(r.fetched.size() == 3);
  CHECK(content_to_string(*p, r.fetched[0]) == "i32:[4,6]");
  CHECK(conform::conform(p, on_accelerator(o.accelerator, 20)).conforms());
}

TEST_CASE("variables stay on the accelerator across runs; a host-only function gets its value copied") {
  const auto p = test::program_from(R"({"name": "acc", "variables": {"x": {"dtype": "i32", "value": [1, 2, 3]}},
    "nodes": [{"id": "v", "op": "Var", "var": "x"}, {"id": "add", "op": "Assign-Add"}, {"id": "v2", "op": "Var", "var": "x"},
              {"id": "read", "op": "Read"}, {"id": "head", "op": "Project", "attrs": {"begin": 0, "end": 1}}],
    "edges": [{"id": "g", "kind": "control", "to": "v", "value": "GO"}, {"from": "v", "to": "add:0", "kind": "variable", "id": "h"},
              {"kind": "tensor", "id": "one", "to": "add:1", "value": {"dtype": "i32", "shape": [], "value": 1}},
              {"id": "done", "kind": "control", "from": "add", "to": "v2"}, {"from": "v2", "to": "read", "kind": "variable", "id": "h2"},
              {"kind": "tensor", "from": "read", "to": "head", "id": "r"}, {"kind": "tensor", "from": "head", "id": "y"}]})");
  fast_exec::ExecOptions o;
  o.accelerator = std::make_shared<test::EmulatedDevice>();
  o.var_values = false;
  fast_exec::Executor executor(p, o);
  CHECK_FALSE(executor.placement().on_accelerator[p->find_node("head")->index()]);
  for (int k = 1; k <= 3; ++k) {
    const auto r = executor.run();
    CHECK(content_to_string(*p, r.fetched.at(0)) == "i32:[" + std::to_string(1 + k) + "]");
    CHECK(r.uploads == 1);    // the constant 1, consumed by Assign-Add on the accelerator
    CHECK(r.downloads == 1);  // Read's value, to Project on the host; y is then on the host already
    CHECK(r.var_value.empty());
  }
}

TEST_CASE("one result reused by every run of every model holds what a new result would, on the accelerator too") {
  // Two executors of each model run side by side on one thread, so that their
  // runs agree: one returns a new result each time, the other writes into a
  // result that every executor before it wrote into (other sizes, other
  // variables). A Const fetched directly takes the reused path (fetch_constant).
  auto models = test::executable_models();
  models.push_back(test::program_from(R"({"name": "consts",
    "nodes": [{"id": "c", "op": "Const", "attrs": {"value": {"dtype": "i32", "value": [1, 2]}}},
              {"id": "s", "op": "Const", "attrs": {"value": {"dtype": "f32", "value": 0.5}}}],
    "edges": [{"id": "g", "kind": "control", "to": "c", "value": "GO"}, {"id": "k", "kind": "control", "from": "c", "to": "s"},
              {"id": "y", "kind": "tensor", "from": "c"}, {"id": "z", "kind": "tensor", "from": "s"}]})"));
  fast_exec::RunResult reused;
  for (const bool accelerator : {false, true})
    for (const bool var_values : {true, false})
      for (const bool record : {false, true})
        for (const auto& p : models) {
          CAPTURE(p->name());
          CAPTURE(accelerator);
          CAPTURE(var_values);
          CAPTURE(record);
          fast_exec::ExecOptions o;
          if (accelerator) o.accelerator = std::make_shared<test::EmulatedDevice>();
          o.var_values = var_values;
          o.record_accesses = o.record_merges = record;
          fast_exec::Executor fresh(p, o), reusing(p, o);
          for (int k = 0; k < 2; ++k) {
            const auto r = fresh.run();
            reusing.run(reused);
            CHECK(reused.fetched == r.fetched);
            CHECK(reused.var_value == r.var_value);
            CHECK(reused.stuck == r.stuck);
            CHECK(reused.uploads == r.uploads);
            CHECK(reused.downloads == r.downloads);
            CHECK(reused.choices.size() == r.choices.size());
            REQUIRE(reused.accesses.size() == r.accesses.size());
            for (std::size_t x = 0; x < r.accesses.size(); ++x) {
              REQUIRE(reused.accesses[x].size() == r.accesses[x].size());
              for (std::size_t i = 0; i < r.accesses[x].size(); ++i) CHECK(reused.accesses[x][i].node == r.accesses[x][i].node);
            }
          }
        }
}
