// The explorer against brute-force enumeration of every schedule (tests/support),
// and against the paper's stated outcomes.
#include <doctest/doctest.h>

#include "explorer/codec.hpp"
#include "explorer/explore.hpp"
#include "explorer/firings.hpp"
#include "explorer/fix.hpp"
#include "explorer/memory_gauge.hpp"
#include "support/graphs.hpp"

#include <nlohmann/json.hpp>

#include <fstream>
#include <map>
#include <random>
#include <set>

using namespace tfsem;

namespace {

// Every terminal outcome (outputs and VarValue) and the number of schedules reaching it.
void brute_force(const Semantics& sem, const State& s, std::map<std::string, std::uint64_t>& out) {
  const auto enabled = sem.enabled_transitions(s);
  if (enabled.empty()) {
    const auto o = explorer::outcome_of(sem, s);
    ++out[explorer::outcome_text(sem, o)];
  }
  for (auto n : enabled)
    for (const auto& next : sem.fire(s, n)) brute_force(sem, next, out);
}

void check_against_brute_force(const std::string& model) {
  CAPTURE(model);
  Semantics sem(test::program_file(model));
  std::map<std::string, std::uint64_t> expected, got;
  brute_force(sem, sem.initial(), expected);
  explorer::ExploreOptions none;
  none.por = explorer::Por::none;
  const auto r = explorer::explore(sem, none);
  REQUIRE(r.complete);
  for (const auto& o : r.outcomes) {
    got[explorer::outcome_text(sem, o)] = o.paths;
    // The witness replays to its outcome.
    State s = sem.initial();
    for (const auto& step : o.witness) s = sem.fire(s, step.transition())[step.choice];
    CHECK(sem.terminal(s));
    CHECK(outputs(sem.program(), s) == o.outputs);
  }
  CHECK(got == expected);
}

}  // namespace

TEST_CASE("outcomes and interleaving counts agree with enumerating every schedule") {
  for (const char* m : {"models/first-example.json", "models/first-example-no-control.json", "models/counter.json",
                       "models/cond-placeholder.json", "models/cond-placeholder-race.json"})
    check_against_brute_force(m);
}

TEST_CASE("a row's shape keeps EMPTY, GO and DEAD, makes every other content GO, and keeps the fired records") {
  // 68 edges: slots taken sixteen at a time and the rest one by one.
  Semantics sem(test::program_file("models/sgd-two-workers-read-write.json"));
  explorer::Codec codec(sem);
  const auto slots = sem.program().frames()[0].slots.size();
  REQUIRE(slots > 32);
  std::mt19937 random(7);
  const std::vector<explorer::Code> pick{0, 1, 2, 3, 200, 0x7fffffffU, 0x80000000U, 0xffffffffU};
  std::string shape;
  for (int round = 0; round < 50; ++round) {
    explorer::Row row(codec.width());
    for (std::size_t col = 0; col < row.size(); ++col)
      row[col] = col < codec.vars() + slots ? pick[random() % pick.size()] : random() % 256;
    if (round % 2 == 1) row.resize(codec.vars() + slots / 2 + 5);  // a shorter row reads as padded with EMPTY
    codec.shape(row, shape);
    for (std::size_t i = 0; i < shape.size(); ++i) {
      const auto col = codec.vars() + i;
      const explorer::Code c = col < row.size() ? row[col] : explorer::kEmptyCode;
      CAPTURE(i);
      CHECK(static_cast<unsigned char>(shape[i]) == (i < slots && c > explorer::kDeadCode ? explorer::kGoCode : c));
    }
  }
}

TEST_CASE("first example: deterministic with the control edge, a harmful race without it") {
  Semantics with(test::program_file("models/first-example.json"));
  const auto r1 = explorer::explore(with);
  CHECK(r1.deterministic());
  CHECK(r1.races.empty());

  Semantics without(test::program_file("models/first-example-no-control.json"));
  const auto r2 = explorer::explore(without);
  CHECK_FALSE(r2.deterministic());
  REQUIRE(r2.outcomes.size() == 2);
  REQUIRE(r2.races.size() == 1);
  const auto& p = without.program();
  const auto& race = r2.races[0];
  CHECK(p.node(race.first.node).name() == "write");
  CHECK(p.node(race.second.node).name() == "read");
  CHECK(race.harmful);
  CHECK(p.variable(race.var).name == "x");
}

TEST_CASE("two Assign-Add nodes on integers race benignly") {
  Semantics sem(test::program_from(R"({
    "variables": {"x": 0},
    "nodes": [{"id": "v1", "op": "Var", "var": "x"}, {"id": "a1", "op": "Assign-Add"},
              {"id": "v2", "op": "Var", "var": "x"}, {"id": "a2", "op": "Assign-Add"}],
    "edges": [
      {"id": "g1", "kind": "control", "to": "v1"}, {"id": "g2", "kind": "control", "to": "v2"},
      {"id": "h1", "kind": "variable", "from": "v1", "to": "a1:0"}, {"id": "i1", "kind": "tensor", "to": "a1:1", "value": 1},
      {"id": "h2", "kind": "variable", "from": "v2", "to": "a2:0"}, {"id": "i2", "kind": "tensor", "to": "a2:1", "value": 2}]})"));
  const auto r = explorer::explore(sem);
  CHECK(r.deterministic());
  REQUIRE(r.races.size() == 1);
  CHECK_FALSE(r.races[0].harmful);
  CHECK(explorer::outcome_text(sem, r.outcomes[0]) == "x=i32:3");
}

TEST_CASE("S-DROP: a read whose value no one fetches races benignly, and its values make no states") {
  // A Read of x racing with an Assign to x; its value goes to an output
  // edge that is fetched (y) or not ("").
  auto graph = [](const char* fetch) {
    return test::program_from(std::string(R"({
      "variables": {"x": 1},
      "nodes": [{"id": "v1", "op": "Var", "var": "x"}, {"id": "w", "op": "Write"},
                {"id": "v2", "op": "Var", "var": "x"}, {"id": "r", "op": "Read"}],
      "edges": [
        {"id": "g1", "kind": "control", "to": "v1"}, {"id": "g2", "kind": "control", "to": "v2"},
        {"id": "h1", "kind": "variable", "from": "v1", "to": "w:0"}, {"id": "i", "kind": "tensor", "to": "w:1", "value": 5},
        {"id": "h2", "kind": "variable", "from": "v2", "to": "r"},
        {"id": "y", "kind": "tensor", "from": "r", "fetch": ")") + fetch + R"("}]})");
  };
  explorer::ExploreOptions none;
  none.por = explorer::Por::none;
  Semantics fetched(graph("y")), dropped(graph(""));
  const auto rf = explorer::explore(fetched, none), rd = explorer::explore(dropped, none);
  CHECK(rf.outcomes.size() == 2);
  REQUIRE(rd.outcomes.size() == 1);
  CHECK(explorer::outcome_text(dropped, rd.outcomes[0]) == "x=i32:5");
  CHECK(rd.counters.states_stored < rf.counters.states_stored);
  REQUIRE(rf.races.size() == 1);
  CHECK(rf.races[0].harmful);
  REQUIRE(rd.races.size() == 1);
  CHECK_FALSE(rd.races[0].harmful);
}

namespace {

// From s, fires the first enabled transition of each state, `steps` times or
// until none is, on packed rows; adds the effects each node's firings used to
// `used`, by node name, and returns the last row.
explorer::Row fire_first(const Semantics& sem, explorer::Firings& firings, const State& s, int steps,
                         std::map<std::string, std::set<std::uint32_t>>& used) {
  explorer::Row row;
  firings.codec().pack(s, row);
  for (int k = 0; k < steps; ++k) {
    const auto enabled = sem.enabled_transitions(firings.codec().unpack(row));
    if (enabled.empty()) break;
    const auto found = firings.find(row, enabled[0]);
    used[std::string(sem.program().node(enabled[0].node).name())].insert(found.effect);
    explorer::Row next;
    firings.fire(row, found, 0, next);
    row = next;
  }
  return row;
}

}  // namespace

TEST_CASE("S-MOVE: a Read and an Identity keep one effect for every value they move, and replay the row's own value") {
  Semantics sem(test::program_from(R"({
    "variables": {"x": 3},
    "nodes": [{"id": "v", "op": "Var", "var": "x"}, {"id": "r", "op": "Read"}, {"id": "i", "op": "Identity"}],
    "edges": [{"id": "g", "kind": "control", "to": "v"}, {"id": "h", "kind": "variable", "from": "v", "to": "r"},
              {"id": "a", "kind": "tensor", "from": "r", "to": "i"}, {"id": "y", "kind": "tensor", "from": "i", "fetch": "y"}]})"));
  explorer::Codec codec(sem);
  explorer::Firings firings(sem, codec, Bounds{});
  std::map<std::string, std::set<std::uint32_t>> used;
  const auto y = *sem.program().find_edge("y");
  for (int v : {3, 7, 11}) {
    CAPTURE(v);
    auto initial = sem.initial();
    initial.var_value[0] = Tensor::scalar<std::int32_t>(v);
    const auto s = codec.unpack(fire_first(sem, firings, initial, 10, used));
    CHECK(sem.terminal(s));
    CHECK(std::get<Tensor>(s.at(y, kRootContext)) == Tensor::scalar<std::int32_t>(v));
  }
  CHECK(used.at("r").size() == 1);
  CHECK(used.at("i").size() == 1);
}

TEST_CASE("S-MOVE: a loop's plumbing computes its effects once, its arithmetic once per iteration") {
  Semantics sem(test::program_file("models/while-sum.json"));
  explorer::Codec codec(sem);
  explorer::Firings firings(sem, codec, Bounds{});
  std::map<std::string, std::set<std::uint32_t>> used;
  fire_first(sem, firings, sem.initial(), 1000, used);  // its ten iterations, to the end
  REQUIRE(used.at("add_i").size() >= 10);  // a new counter every iteration
  for (const char* plumbing : {"merge_0", "merge_1", "switch_0", "switch_1", "next_0", "next_1", "copy_body_i", "pivot"}) {
    CAPTURE(plumbing);
    CHECK(used.at(plumbing).size() <= 2);  // iteration 0 (from Enter) and the later ones (from NextIteration)
  }
}

TEST_CASE("S-EVAL: a loop's arithmetic is evaluated on new arguments, with no more firings computed as the iterations grow") {
  std::size_t computed[2] = {};
  for (int k = 0; k < 2; ++k) {
    const int iterations = k == 0 ? 10 : 40;
    CAPTURE(iterations);
    auto model = nlohmann::json::parse(std::ifstream(std::string(TFSEM_SOURCE_DIR) + "/models/while-sum.json"));
    for (auto& e : model["edges"])
      if (e["id"] == "t_3") e["value"] = iterations;
    Semantics sem(test::program_from(model.dump()));
    explorer::Codec codec(sem);
    explorer::Firings firings(sem, codec, Bounds{});
    std::map<std::string, std::set<std::uint32_t>> used;
    const auto s = codec.unpack(fire_first(sem, firings, sem.initial(), 100000, used));
    REQUIRE(sem.terminal(s));
    // The sum of 0..iterations-1, as the semantics alone computes it.
    CHECK(std::get<Tensor>(s.at(*sem.program().find_edge("sum"), kRootContext)) ==
          Tensor::scalar<std::int32_t>(iterations * (iterations - 1) / 2));
    CHECK(used.at("add_i").size() >= static_cast<std::size_t>(iterations));  // one effect per counter
    computed[k] = firings.computed();
  }
  CHECK(computed[0] == computed[1]);
}

TEST_CASE("S-EVAL: an argument a function leaves in place, a loop invariant, is the row's own in every frame instance") {
  // nested-loops with the inner loop adding the outer counter i, a loop
  // invariant of each inner instance: n = 2 * (0 + 1 + 2). Inner_add_n's
  // effect on any arguments is made in the first instance and evaluated in
  // the others, where the invariant it leaves on its edge is another tensor.
  auto model = nlohmann::json::parse(std::ifstream(std::string(TFSEM_SOURCE_DIR) + "/models/nested-loops.json"));
  auto edges = nlohmann::json::array(), nodes = nlohmann::json::array();
  for (auto e : model["edges"]) {
    if (e["id"] == "inner_inc" || e["id"] == "outer_copy_to_inner_inc") continue;
    if (e["id"] == "t_3") e["value"] = 3;
    if (e["id"] == "outer_copy_1") e = {{"id", "outer_i"}, {"kind", "tensor"}, {"from", "outer_copy:1"}, {"to", "inner_enter_inc"}};
    edges.push_back(e);
  }
  for (const auto& n : model["nodes"])
    if (n["id"] != "inner_inc") nodes.push_back(n);
  model["edges"] = edges;
  model["nodes"] = nodes;
  Semantics sem(test::program_from(model.dump()));
  const auto r = explorer::explore(sem);
  REQUIRE(r.complete);
  REQUIRE(r.outcomes.size() == 1);
  CHECK(explorer::outcome_text(sem, r.outcomes[0]).find("n=i32:6") != std::string::npos);
}

TEST_CASE("a run of deterministic firings keeps nothing for the levels it skips") {
  // Three additions evaluated in each of 25,000 iterations: more effects on
  // new arguments (S-EVAL) than the cache keeps, so the last ones are transient.
  auto model = nlohmann::json::parse(std::ifstream(std::string(TFSEM_SOURCE_DIR) + "/models/while-sum.json"));
  for (auto& e : model["edges"])
    if (e["id"] == "t_3") e["value"] = 25000;
  Semantics sem(test::program_from(model.dump()));
  explorer::ExploreOptions opts;
  opts.limits.bounds.max_iterations = 30000;
  const auto r = explorer::explore(sem, opts);
  REQUIRE(r.complete);
  REQUIRE(r.outcomes.size() == 1);
  CHECK(explorer::outcome_text(sem, r.outcomes[0]).find("sum=i32:312487500") != std::string::npos);
  // 350,000 firings from the first state to the last: three states stored,
  // and no entry for each level between.
  CHECK(r.counters.states_stored == 3);
  CHECK(r.store_bytes < (std::size_t{2} << 20));
}

TEST_CASE("Figure 4's lost update: its Read, Add and Write made one Assign-Add is a verified fix") {
  Semantics sem(test::program_file("models/figure-4-lost-update.json"));
  const auto r = explorer::explore(sem);
  REQUIRE(r.outcomes.size() == 3);
  const auto fixes = explorer::suggest_fixes(sem, r);
  const auto atomic = std::find_if(fixes.begin(), fixes.end(), [](const explorer::Fix& f) { return !f.atomic_updates.empty(); });
  REQUIRE(atomic != fixes.end());
  CHECK(explorer::fix_text(sem.program(), *atomic) == "make atomic (use_locking) the updates write_1, write_2");
  CHECK(atomic->control_edges.empty());
  // The fixed graph: two Assign-Add in place of the Writes, no Read, Add or Var of those
  // updates left, and the first Write still before both (its control edges moved to them).
  const auto& spec = atomic->fixed;
  auto op_of = [&](const char* id) {
    const auto it = std::find_if(spec.nodes.begin(), spec.nodes.end(), [&](const NodeSpec& n) { return n.id == id; });
    return it == spec.nodes.end() ? std::string("none") : it->op.str();
  };
  CHECK(op_of("write_1") == "Assign-Add");
  CHECK(op_of("write_2") == "Assign-Add");
  for (const char* gone : {"read_1", "add_1", "var_read_1", "read_2", "add_2", "var_read_2"}) CHECK(op_of(gone) == "none");
  Semantics fixed(Program::build(spec));
  const auto rf = explorer::explore(fixed, {.por = explorer::Por::none});
  REQUIRE(rf.outcomes.size() == 1);
  CHECK(explorer::outcome_text(fixed, rf.outcomes[0]) == "y=i32:[[6,6]]; x=i32:[[6,6]]");
}

TEST_CASE("a limit stops the search as incomplete, never with a verdict") {
  Semantics sem(test::program_file("models/first-example-no-control.json"));
  explorer::ExploreOptions o;
  o.limits.max_states = 3;
  const auto r = explorer::explore(sem, o);
  CHECK_FALSE(r.complete);
  CHECK(r.stopped_by == "max-states 3");
  CHECK_FALSE(r.deterministic());
}

TEST_CASE("a stop flag set from outside stops the search at the next state, as an interrupt") {
  Semantics sem(test::program_file("models/first-example-no-control.json"));
  const std::atomic<bool> stop{true};
  StopToken token;
  token.watch(&stop);
  explorer::ExploreOptions o;
  o.limits.stop = &token;
  const auto r = explorer::explore(sem, o);
  CHECK_FALSE(r.complete);
  CHECK(r.stopped_by == "interrupt");
  CHECK(r.counters.states_stored < 5);
}

TEST_CASE("the memory gauge reads the resident set, and adds what the search counts between two readings") {
  const auto resident = tfsem::resident_set_bytes();
  REQUIRE(resident);  // Linux has /proc/self/statm
  CHECK(*resident > 0);
  explorer::MemoryGauge gauge;
  const auto first = gauge.bytes(1000);
  CHECK(first >= *resident / 2);
  CHECK(gauge.bytes(1000 + 4096) == first + 4096);  // below the re-reading threshold: the count's growth
  CHECK(gauge.peak() == first + 4096);
}

namespace {

std::set<std::string> outputs_of(const Semantics& sem, const explorer::Result& r) {
  std::set<std::string> out;
  for (const auto& o : r.outcomes) out.insert(content_to_string(sem.program(), o.outputs.at(0).second));
  return out;
}

}  // namespace

TEST_CASE("Figure 1, symbolic: Add(Add(B,D),E) and Add(Add(B,E),D); one outcome modulo the laws of Add") {
  const auto program = test::program_file("models/figure-1-assign-add.json");
  const std::string d = "Project(Split.0(C))", e = "Project(Split.1(C))";
  const Semantics plain(program);
  CHECK(outputs_of(plain, explorer::explore(plain)) ==
        std::set<std::string>{"Add(Add(B," + d + ")," + e + ")", "Add(Add(B," + e + ")," + d + ")"});
  const Semantics normalized(program, Options{TermOptions{true}});
  const auto r = explorer::explore(normalized);
  CHECK(r.deterministic());
  REQUIRE(r.races.size() == 1);
  CHECK_FALSE(r.races[0].harmful);  // modulo the laws, both orders reach the same state
}

TEST_CASE("Figure 1 with Assign-Concat: the order is visible in the output") {
  const Semantics sem(test::program_file("models/figure-1-assign-concat.json"));
  CHECK(outputs_of(sem, explorer::explore(sem)) ==
        std::set<std::string>{"i32:[[1,1],[2,2],[3,3]]", "i32:[[1,1],[3,3],[2,2]]"});
}

TEST_CASE("Figure 4: Read, Add, Write replicas lose an update") {
  const Semantics sem(test::program_file("models/figure-4-lost-update.json"));
  // B + D + E, or one of D and E overwritten: B + E, B + D.
  CHECK(outputs_of(sem, explorer::explore(sem)) == std::set<std::string>{"i32:[[6,6]]", "i32:[[4,4]]", "i32:[[3,3]]"});
}

TEST_CASE("C-SWITCH-SYMBOLIC: a cond on a placeholder has two path conditions, one outcome each: deterministic") {
  const Semantics sem(test::program_file("models/cond-placeholder.json"));
  for (const auto por : explorer::kAllPor) {
    CAPTURE(explorer::por_name(por));
    explorer::ExploreOptions o;
    o.por = por;
    const auto r = explorer::explore(sem, o);
    REQUIRE(r.outcomes.size() == 2);
    CHECK(r.deterministic());
    CHECK_FALSE(r.violated());
    // Three Switches on one term: two path conditions, not eight (contradictions pruned).
    std::set<std::string> texts;
    for (const auto& oc : r.outcomes) texts.insert(explorer::outcome_text(sem, oc));
    CHECK(texts == std::set<std::string>{"when Less(X,i32:5) is true: r=Add(X,i32:3); branch=i32:0",
                                         "when Less(X,i32:5) is false: r=i32:25; branch=i32:1"});
  }
}

TEST_CASE("S-PATH: a cond on a placeholder whose branch races on a variable is nondeterministic under that path condition") {
  const Semantics sem(test::program_file("models/cond-placeholder-race.json"));
  const auto r = explorer::explore(sem);
  CHECK_FALSE(r.deterministic());
  CHECK(r.outcomes.size() == 3);
  REQUIRE(r.races.size() == 1);
  CHECK(r.races[0].harmful);
  CHECK(r.races[0].path.to_string() == "P is true");
  std::size_t under_true = 0;
  for (const auto& o : r.outcomes) under_true += o.path.to_string() == "P is true";
  CHECK(under_true == 2);
}

TEST_CASE("S-PATH: a while loop with a placeholder bound stops at max-iterations naming the loop and the placeholder") {
  const Semantics sem(test::program_file("models/while-placeholder-bound.json"));
  explorer::ExploreOptions o;
  o.limits.bounds.max_iterations = 4;
  const auto r = explorer::explore(sem, o);
  CHECK_FALSE(r.complete);
  CHECK(r.stopped_by ==
        "max-iterations 4 in loop 'sum', whose condition depends on unknown input 't_3' (feed with --feed t_3=VALUE)");
  // One outcome per number of iterations run, each under its own path condition.
  REQUIRE(r.outcomes.size() == 3);
  CHECK(explorer::one_per_path(r.outcomes));
}
