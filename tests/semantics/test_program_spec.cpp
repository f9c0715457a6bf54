// A Program lets go of its edges' declarations once built and makes them
// again for spec(): what it gives back must be what it was built from, as
// written (ports named or left out, GO said or unsaid, fetch names).
#include <doctest/doctest.h>

#include "semantics/diagnostic.hpp"
#include "semantics/functions.hpp"
#include "formats/json/graph_json.hpp"
#include "tests/support/spec_text.hpp"

#include <filesystem>

using namespace tfsem;
namespace fs = std::filesystem;

namespace {

// What the Program built from `spec` gives back, and whether it is, as text,
// the spec the Program was built from (its library made static).
ProgramSpec given_back(const ProgramSpec& spec) {
  auto back = Program::build(spec)->spec();
  CHECK(test::spec_text(back) == test::spec_text(make_static(spec)));
  return back;
}

}  // namespace

TEST_CASE("a Program gives back the spec of every shipped model as it was read") {
  int count = 0;
  for (const auto& f : fs::directory_iterator(fs::path(TFSEM_SOURCE_DIR) / "models")) {
    if (f.path().extension() != ".json") continue;
    CAPTURE(f.path().filename().string());
    const auto spec = format::load_program_file(f.path());
    try {
      given_back(spec);
      ++count;
    } catch (const InputError&) {  // a model of a graph the rules refuse
    }
  }
  CHECK(count >= 30);
}

TEST_CASE("a Program gives back each edge's spelling: ports named or not, GO said or not, fetch names") {
  const auto spec = format::parse_program_text(R"({"name": "spelled",
    "variables": {"x": {"dtype": "i32", "value": 1}},
    "nodes": [{"id": "v", "op": "Var", "var": "x"}, {"id": "r", "op": "Read"},
              {"id": "a", "op": "Add"}, {"id": "b", "op": "Identity"}, {"id": "w", "op": "Read"}],
    "edges": [
      {"id": "go_v", "kind": "control", "to": "v", "value": "GO"},
      {"id": "vr", "kind": "variable", "from": "v", "to": "r:0"},
      {"id": "ra", "kind": "tensor", "from": "r", "to": "a"},
      {"id": "c", "kind": "tensor", "to": "a:1", "value": 2},
      {"id": "ab", "kind": "tensor", "from": "a:0", "to": "b:0"},
      {"id": "go_b", "kind": "control", "to": "b"},
      {"id": "xw", "kind": "variable", "to": "w", "value": "x"},
      {"id": "wo", "kind": "tensor", "from": "w:0", "fetch": ""},
      {"id": "bo", "kind": "tensor", "from": "b", "fetch": "sum"},
      {"id": "done", "kind": "control", "from": "b"}
    ]})", "spelled.json");
  const auto again = given_back(spec);
  REQUIRE(again.edges.size() == spec.edges.size());
  CHECK(again.edges[1].to->port.has_value());                 // "r:0" keeps its port
  CHECK_FALSE(again.edges[2].to->port.has_value());           // "a" leaves it out
  CHECK_FALSE(again.edges[5].value);                          // GO unsaid
  CHECK(again.edges[0].value_as<Go>() != nullptr);            // GO said
  CHECK(*again.edges[6].value_as<CompactString>() == "x");
  CHECK(again.edges[7].fetch_name().empty());
  CHECK(again.edges[8].fetch_name() == "sum");
  CHECK(again.edges[9].fetch_name() == "done");
  CHECK(again.edges[3].where == "/edges/3");
}
