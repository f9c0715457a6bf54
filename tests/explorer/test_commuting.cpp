// S-COMMUTE: two updates of one variable that commute in every reachable
// state are independent for the reductions, so n of them explore one order;
// their races are benign. Checked against the full search (--por none) on
// small cases; a Read between the updates, floats, errors and operands not
// known statically keep the orders apart.
#include <doctest/doctest.h>

#include "explorer/explore.hpp"
#include "semantics/dependence.hpp"
#include "support/graphs.hpp"

#include <set>
#include <string>

using namespace tfsem;
using explorer::Por;

namespace {

std::shared_ptr<const Program> model(const std::string& name, const std::vector<std::string>& feeds = {}) {
  auto spec = format::load_program_file(std::string(TFSEM_SOURCE_DIR) + "/models/" + name + ".json");
  for (const auto& f : feeds) format::apply_feed(spec, f);
  return Program::build(spec);
}

explorer::Result explore(const Semantics& sem, Por por, std::uint32_t max_depth = 100) {
  explorer::ExploreOptions o;
  o.por = por;
  o.limits.bounds.max_depth = max_depth;
  auto r = explorer::explore(sem, o);
  REQUIRE(r.complete);
  return r;
}

std::set<std::string> outcomes(const Semantics& sem, const explorer::Result& r) {
  std::set<std::string> out;
  for (const auto& o : r.outcomes) out.insert(explorer::outcome_text(sem, o));
  return out;
}

bool commuting(const std::string& json, TermOptions terms = {}) {
  const Semantics sem(test::program_from(json), Options{.terms = terms});
  return sem.dependence().commuting(*sem.program().find_variable("x"));
}

// x += a and x += b, a and b on input edges, unordered; `x` is x's initial value.
std::string two_updates(const std::string& x, const std::string& a, const std::string& b, const std::string& second_op = "Assign-Add") {
  return R"({"name": "two", "variables": {"x": )" + x + R"(},
    "nodes": [{"id": "v1", "op": "Var", "var": "x"}, {"id": "u1", "op": "Assign-Add"},
              {"id": "v2", "op": "Var", "var": "x"}, {"id": "u2", "op": ")" + second_op + R"("},
              {"id": "v3", "op": "Var", "var": "x"}, {"id": "read", "op": "Read"}],
    "edges": [{"id": "g1", "kind": "control", "to": "v1"}, {"id": "h1", "kind": "variable", "from": "v1", "to": "u1:0"},
              {"id": "a", "kind": "tensor", "to": "u1:1", "value": )" + a + R"(},
              {"id": "g2", "kind": "control", "to": "v2"}, {"id": "h2", "kind": "variable", "from": "v2", "to": "u2:0"},
              {"id": "b", "kind": "tensor", "to": "u2:1", "value": )" + b + R"(},
              {"id": "d1", "kind": "control", "from": "u1", "to": "v3"}, {"id": "d2", "kind": "control", "from": "u2", "to": "v3"},
              {"id": "h3", "kind": "variable", "from": "v3", "to": "read"}, {"id": "y", "kind": "tensor", "from": "read"}]})";
}

}  // namespace

TEST_CASE("S-COMMUTE: integer Assign-Add and Assign-Sub of operands known statically, of the variable's dtype, commute") {
  CHECK(commuting(two_updates("0", "1", "2")));
  CHECK(commuting(two_updates("0", "1", "2", "Assign-Sub")));
  CHECK(commuting(two_updates(R"({"dtype": "i64", "value": [1, 2]})", R"({"dtype": "i64", "value": 3})",
                              R"({"dtype": "i64", "value": [4, 5]})")));
  // Floats round: their addition is not associative.
  CHECK_FALSE(commuting(two_updates("0.5", "1.5", "2.5")));
  // A dtype or shape mismatch is an error, whose text may depend on the order.
  CHECK_FALSE(commuting(two_updates("0", "1", R"({"dtype": "i64", "value": 2})")));
  CHECK_FALSE(commuting(two_updates("0", "1", "[1, 2]")));
  // An uninitialized variable holds an error.
  CHECK_FALSE(commuting(two_updates("null", "1", "2")));
  // Mul and Add do not commute with each other.
  CHECK_FALSE(commuting(two_updates("0", "1", "2", "Assign-Mul")));
  CHECK_FALSE(commuting(two_updates("0", "1", "2", "Write")));
  // Symbolic: one AC function, and only with the terms normalized.
  CHECK(commuting(two_updates(R"("A")", R"("B")", "2"), {.normalize = true}));
  CHECK_FALSE(commuting(two_updates(R"("A")", R"("B")", "2")));
  CHECK_FALSE(commuting(two_updates(R"("A")", R"("B")", "2", "Assign-Sub"), {.normalize = true}));
  // A concrete variable with a symbolic operand: A + 1 + 2 is not (A + 2) + 1 without folding.
  CHECK_FALSE(commuting(two_updates("0", R"("B")", "2"), {.normalize = true}));
}

TEST_CASE("S-COMMUTE: commuting updates explore one order, with the outcomes and verdict of the full search") {
  for (const auto& json : {two_updates("0", "1", "2"), two_updates("7", "1", "2", "Assign-Sub")}) {
    const Semantics sem(test::program_from(json));
    const auto full = explore(sem, Por::none);
    for (auto por : {Por::stubborn, Por::rf}) {
      const auto reduced = explore(sem, por);
      CHECK(outcomes(sem, reduced) == outcomes(sem, full));
      CHECK(reduced.deterministic() == full.deterministic());
      CHECK(reduced.counters.behaviours == 1);
      REQUIRE(reduced.races.size() == 1);
      CHECK_FALSE(reduced.races[0].harmful);
    }
  }
  // Under --normalize, A + B + 2 in either order.
  const Semantics sem(test::program_from(two_updates(R"("A")", R"("B")", "2")), Options{.terms = {.normalize = true}});
  const auto full = explore(sem, Por::none);
  const auto reduced = explore(sem, Por::stubborn);
  CHECK(outcomes(sem, full).size() == 1);
  CHECK(outcomes(sem, reduced) == outcomes(sem, full));
  CHECK(reduced.counters.behaviours == 1);
}

TEST_CASE("S-COMMUTE: a recursive function whose every call adds 1 to x explores one order of its updates") {
  const Semantics small(model("recursive-assign-add"));
  const auto full = explore(small, Por::none);
  const auto reduced = explore(small, Por::stubborn);
  CHECK(outcomes(small, reduced) == outcomes(small, full));
  CHECK(reduced.counters.behaviours == 1);
  // 100 calls: one behaviour, one benign race by pair of nodes, and the
  // updates, which no node reads, fired in one move: the state where they
  // are all enabled, and the end.
  const Semantics sem(model("recursive-assign-add", {"n=100"}), {});
  const auto r = explore(sem, Por::stubborn, 200);
  CHECK(outcomes(sem, r) == std::set<std::string>{"r=i32:0; x=i32:100"});
  CHECK(r.counters.behaviours == 1);
  CHECK(r.counters.states_stored == 2);
  REQUIRE(r.races.size() == 1);
  CHECK_FALSE(r.races[0].harmful);
}

TEST_CASE("S-COMMUTE: a Read between two calls still races harmfully with the updates") {
  const Semantics sem(model("recursive-assign-add-read"));
  const auto full = explore(sem, Por::none);
  for (auto por : {Por::stubborn, Por::rf}) {
    const auto reduced = explore(sem, por);
    CHECK(outcomes(sem, reduced) == outcomes(sem, full));
    CHECK(outcomes(sem, reduced).size() == 2);
    bool harmful = false;
    for (const auto& race : reduced.races)
      harmful = harmful || (race.harmful && (sem.program().node(race.first.node).name() == "read" ||
                                             sem.program().node(race.second.node).name() == "read"));
    CHECK(harmful);
  }
  // Three updates in each call chain: the Read sees 0..3.
  const Semantics more(model("recursive-assign-add-read", {"n=3", "n2=3"}));
  CHECK(outcomes(more, explore(more, Por::stubborn)).size() == 4);
}

TEST_CASE("S-COMMUTE: f32 updates whose orders round differently stay distinct outcomes") {
  const Semantics sem(model("recursive-assign-add-f32"));
  CHECK_FALSE(sem.dependence().commuting(*sem.program().find_variable("x")));
  const auto full = explore(sem, Por::none);
  CHECK(outcomes(sem, full).size() == 3);
  for (auto por : {Por::stubborn, Por::rf}) CHECK(outcomes(sem, explore(sem, por)) == outcomes(sem, full));
}
