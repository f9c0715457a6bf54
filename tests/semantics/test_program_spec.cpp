// A Program lets go of its nodes' and edges' declarations once built and
// makes them again for spec(): what it gives back must be what it was built
// from, as written (ports named or left out, GO said or unsaid, fetch names,
// devices, and JSON paths that are not an element's place).
#include <doctest/doctest.h>

#include "semantics/declared_where.hpp"
#include "semantics/diagnostic.hpp"
#include "semantics/functions.hpp"
#include "formats/json/graph_json.hpp"
#include "tests/support/spec_text.hpp"

#include <algorithm>
#include <filesystem>
#include <map>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

using namespace tfsem;
namespace fs = std::filesystem;

namespace {

// What `program`, built from `spec`, gives back, and whether it is, as
// text, the spec the Program was built from (its library made static).
ProgramSpec given_back(const Program& program, const ProgramSpec& spec) {
  auto back = program.spec();
  CHECK(test::spec_text(back) == test::spec_text(make_static(spec)));
  return back;
}
ProgramSpec given_back(const ProgramSpec& spec) { return given_back(*Program::build(spec), spec); }

// The problems the rules find in `spec`, each as its rule and where it is.
std::vector<std::string> refusals(const ProgramSpec& spec) {
  std::vector<std::string> found;
  try {
    (void)Program::build(spec);
  } catch (const InputError& e) {
    for (const auto& d : e.diagnostics()) found.push_back(d.rule + " " + d.where);
  }
  return found;
}

// The Program of `spec` built with its edges given in pieces of `piece`.
std::shared_ptr<const Program> in_pieces(ProgramSpec spec, std::size_t piece) {
  auto edges = std::move(spec.edges);
  spec.edges.clear();
  ProgramBuilder builder(std::move(spec), edges.size());
  for (std::size_t at = 0; at < edges.size(); at += piece)
    builder.add_edges(std::span(edges).subspan(at, std::min(piece, edges.size() - at)));
  return builder.finish();
}

}  // namespace

TEST_CASE("a Program built from its edges in pieces is the one built whole, or has the same problems") {
  int models = 0, refused = 0;
  for (const char* dir : {"models", "tests/malformed"})
    for (const auto& f : fs::recursive_directory_iterator(fs::path(TFSEM_SOURCE_DIR) / dir)) {
      if (f.path().extension() != ".json") continue;
      CAPTURE(f.path().string());
      ProgramSpec spec;
      try {
        spec = make_static(format::load_program_file(f.path()));
      } catch (const InputError&) {  // a file the reader refuses, or a library the rules refuse
        continue;
      }
      const auto whole = test::built_text([&] { return Program::build(spec); });
      ++models;
      refused += whole.starts_with("error:") ? 1 : 0;
      for (const std::size_t piece : {1U, 2U, 5U}) {
        CAPTURE(piece);
        CHECK(test::built_text([&] { return in_pieces(spec, piece); }) == whole);
      }
    }
  CHECK(models > 60);
  CHECK(refused > 10);
}

TEST_CASE("a Program's builder takes a spec without edges or library, then exactly the edges it was told of") {
  auto spec = format::parse_program_text(R"({"nodes":[{"id":"a","op":"NoOp"}],
    "edges":[{"id":"g","kind":"control","to":"a","value":"GO"},{"id":"h","kind":"control","from":"a"}]})", "f");
  CHECK_THROWS_AS(ProgramBuilder(spec, spec.edges.size()), std::logic_error);
  const auto declared = std::move(spec.edges);
  spec.edges.clear();
  {
    ProgramBuilder short_of(spec, 2);
    auto edges = declared;
    short_of.add_edges(std::span(edges).first(1));
    CHECK_THROWS_AS(short_of.finish(), std::logic_error);
  }
  {
    ProgramBuilder past(spec, 1);
    auto edges = declared;
    CHECK_THROWS_AS(past.add_edges(edges), std::logic_error);
  }
  auto edges = declared;  // the builder moves what it keeps out of the edges it is given
  ProgramBuilder builder(spec, 2);
  builder.add_edges(std::span(edges).first(1));
  builder.add_edges(std::span(edges).subspan(1));
  CHECK(builder.finish()->edges().size() == 2);
  CHECK_THROWS_AS(builder.finish(), std::logic_error);
  CHECK_THROWS_AS(builder.add_edges({}), std::logic_error);
  // A finish that finds problems gives them all: a second one has none to find.
  ProgramBuilder refused(spec, 1);
  auto one = declared;
  one.resize(1);
  one[0].id = "";
  refused.add_edges(one);
  CHECK_THROWS_AS(refused.finish(), InputError);
  CHECK_THROWS_AS(refused.finish(), std::logic_error);
}

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

TEST_CASE("a Program keeps each path that is not its element's place, and gives back every node's declaration") {
  auto spec = format::parse_program_text(R"({"name": "paths",
    "variables": {"x": {"dtype": "i32", "value": 1}},
    "nodes": [{"id": "v", "op": "Var", "var": "x", "device": "/cpu:0"}, {"id": "r", "op": "Read"},
              {"id": "c", "op": "Const", "attrs": {"value": 3}}, {"id": "w", "op": "Write"},
              {"id": "a", "op": "Assign-Snd"}],
    "edges": [
      {"id": "go", "kind": "control", "to": "v"},
      {"id": "vr", "kind": "variable", "from": "v", "to": "r"},
      {"id": "go_c", "kind": "control", "to": "c"},
      {"id": "out", "kind": "tensor", "from": "r"},
      {"id": "xw", "kind": "variable", "to": "w", "value": "x"},
      {"id": "cw", "kind": "tensor", "from": "c", "to": "w:1"},
      {"id": "xa", "kind": "variable", "to": "a", "value": "x"},
      {"id": "t", "kind": "tensor", "to": "a:1", "value": 5}
    ]})", "paths.json");
  spec.nodes[1].where = "node 1 'r'";   // as a GraphDef import writes them
  spec.edges[1].where = "node 1 'r'";
  spec.nodes[3].where = "/nodes/4";     // another element's place
  spec.edges[7].where = "/edges/10";
  const auto program = Program::build(spec);
  const auto again = given_back(*program, spec);
  CHECK(program->where(program->node(NodeId(1u))) == "node 1 'r'");
  CHECK(program->where(program->node(NodeId(2u))) == "/nodes/2");
  CHECK(program->where(program->node(NodeId(3u))) == "/nodes/4");
  CHECK(program->where(program->edge(EdgeId(1u))) == "node 1 'r'");
  CHECK(program->where(program->edge(EdgeId(6u))) == "/edges/6");
  CHECK(program->where(program->edge(EdgeId(7u))) == "/edges/10");
  REQUIRE(again.nodes.size() == spec.nodes.size());
  CHECK(again.nodes[0].var == "x");
  CHECK(again.nodes[0].device == "/cpu:0");
  CHECK(again.nodes[1].device.empty());
  CHECK(again.nodes[3].op == "Write");       // Write and Assign-Snd are one Op, spelled as read
  CHECK(again.nodes[4].op == "Assign-Snd");
  CHECK(program->node(NodeId(2u)).decl->attrs.shares_with(spec.nodes[2].attrs));
}

TEST_CASE("paths made in code, all \"\", and paths an importer wrote, one per node, come back") {
  auto spec = format::parse_program_text(R"({"name": "made",
    "nodes": [{"id": "c", "op": "Const", "attrs": {"value": 1}}, {"id": "d", "op": "Identity"},
              {"id": "e", "op": "Identity"}],
    "edges": [
      {"id": "go", "kind": "control", "to": "c"},
      {"id": "cd", "kind": "tensor", "from": "c", "to": "d"},
      {"id": "de", "kind": "tensor", "from": "d", "to": "e"},
      {"id": "out", "kind": "tensor", "from": "e"}
    ]})", "made.json");
  for (auto& n : spec.nodes) n.where = "";
  for (auto& e : spec.edges) e.where = "";
  auto program = Program::build(spec);
  given_back(*program, spec);
  CHECK(program->where(program->node(NodeId(1u))).empty());
  CHECK(program->where(program->edge(EdgeId(3u))).empty());
  for (std::size_t i = 0; i < spec.nodes.size(); ++i) spec.nodes[i].where = "node " + std::to_string(i);
  for (std::size_t i = 0; i < spec.edges.size(); ++i) spec.edges[i].where = "node " + std::to_string(i == 0 ? 0 : i - 1);
  program = Program::build(spec);
  given_back(*program, spec);
  CHECK(program->where(program->node(NodeId(2u))) == "node 2");
  CHECK(program->where(program->edge(EdgeId(0u))) == "node 0");
  CHECK(program->where(program->edge(EdgeId(1u))) == "node 0");
  CHECK(program->where(program->edge(EdgeId(3u))) == "node 2");
}

TEST_CASE("a node's device comes back, a library function's body nodes' too, and a call site's nodes take the call's") {
  const auto spec = format::parse_program_text(R"({"name": "devices",
    "library": [{"name": "inc", "args": ["x"], "results": ["y"],
                 "nodes": [{"id": "a", "op": "Add", "device": "/cpu:1"}],
                 "edges": [{"id": "x", "kind": "tensor", "to": "a:0", "arg": "x"},
                           {"id": "one", "kind": "tensor", "to": "a:1", "value": 1},
                           {"id": "y", "kind": "tensor", "from": "a", "result": "y"}]}],
    "nodes": [{"id": "c", "op": "Const", "attrs": {"value": 1}, "device": "/cpu:0"}, {"id": "f", "op": "inc", "device": "/cpu:2"}],
    "edges": [
      {"id": "go", "kind": "control", "to": "c"},
      {"id": "cf", "kind": "tensor", "from": "c", "to": "f"},
      {"id": "out", "kind": "tensor", "from": "f"}
    ]})", "devices.json");
  const auto again = given_back(spec);
  std::map<std::string, std::string> device;
  for (const auto& n : again.nodes) device[n.id.str()] = n.device.str();
  CHECK(device.at("c") == "/cpu:0");
  CHECK(device.at("f/call.x") == "/cpu:2");
  CHECK(device.at("f/return.y") == "/cpu:2");
  CHECK(std::count_if(again.nodes.begin(), again.nodes.end(), [](const NodeSpec& n) { return n.device == "/cpu:1"; }) == 1);
}

TEST_CASE("a problem found after a node was refused names the node's own place") {
  const auto spec = format::parse_program_text(R"({"name": "refused-node",
    "nodes": [{"id": "c", "op": "Const", "attrs": {"value": 1}}, {"id": "c", "op": "Identity"},
              {"id": "d", "op": "Const", "attrs": {"value": 2}}],
    "edges": [
      {"id": "go_c", "kind": "control", "to": "c"},
      {"id": "co", "kind": "tensor", "from": "c"},
      {"id": "do", "kind": "tensor", "from": "d"}
    ]})", "refused-node.json");
  CHECK(refusals(spec) == std::vector<std::string>{"G-UNIQUE /nodes/1", "G-TRIGGER /nodes/2"});
}

TEST_CASE("a problem found after an edge was refused names its own place, not its place among the edges let in") {
  const auto spec = format::parse_program_text(R"({"name": "refused",
    "nodes": [{"id": "c", "op": "Const", "attrs": {"value": 1}}, {"id": "d", "op": "Const", "attrs": {"value": 2}}],
    "edges": [
      {"id": "bad", "kind": "wire", "to": "c"},
      {"id": "go_c", "kind": "control", "to": "c"},
      {"id": "go_d", "kind": "control", "to": "d"},
      {"id": "co", "kind": "tensor", "from": "c", "fetch": "y"},
      {"id": "do", "kind": "tensor", "from": "d", "fetch": "y"}
    ]})", "refused.json");
  CHECK(refusals(spec) == std::vector<std::string>{"G-EDGE-KIND /edges/0/kind", "G-FETCH /edges/4/fetch"});
}

TEST_CASE("paths are kept as runs: at places one after another, shifted, or at one path") {
  DeclaredWhere where("/edges/");
  std::vector<std::string> paths;
  for (int i = 0; i < 4; ++i) paths.push_back("/edges/" + std::to_string(i));  // at their places
  paths.push_back("/edges/2");                                                // another's place
  for (int i = 7; i < 12; ++i) paths.push_back("/edges/" + std::to_string(i));  // two places on
  paths.insert(paths.end(), {"", "", "node 3 'x'", "node 3 'x'", "/edges/012", "/edges/", "/nodes/3"});
  paths.push_back("/edges/18446744073709551615");  // the last place an index can name
  for (std::size_t i = 0; i < paths.size(); ++i) where.add(static_cast<std::uint32_t>(i), CompactString(paths[i]));
  where.shrink();
  for (std::size_t i = 0; i < paths.size(); ++i) CHECK(where(static_cast<std::uint32_t>(i)) == paths[i]);
  CHECK(where.runs() == 9);  // 0-3, 4, 5-9 (at 7-11), "", node 3, 012, "/edges/", "/nodes/3", the last place
  CHECK(ElementPath("/nodes/", 1234567).view() == "/nodes/1234567");
}
