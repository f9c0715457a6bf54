// Importing TensorFlow GraphDefs (docs/import.md): the three encodings, the op
// mapping row by row, TensorProto values, the round trip through tfsem's JSON,
// and the malformed GraphDefs of tests/import/malformed/ with the exact errors
// beside them (TFSEM_PROMOTE=1 re-records the .expected files).
#include <doctest/doctest.h>

#include "semantics/diagnostic.hpp"
#include "formats/json/graph_json.hpp"
#include "formats/load.hpp"
#include "formats/graphdef/op_table.hpp"
#include "formats/graphdef/reader.hpp"
#include "formats/graphdef/tensor_proto.hpp"
#include "semantics/semantics.hpp"
#include "semantics/session.hpp"

#include <google/protobuf/text_format.h>
#include <google/protobuf/util/json_util.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

using namespace tfsem;
using namespace tfsem::graphdef;
using tfsem::format::load_graph_file;
namespace fs = std::filesystem;

namespace {

const fs::path kRoot = fs::path(TFSEM_SOURCE_DIR);

std::string read(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

Imported import_text(const std::string& text, ImportOptions options = {}) {
  return import_graph(parse(text, Encoding::text, "test.pbtxt").graph, "test", options);
}

const NodeSpec& node(const ProgramSpec& spec, const std::string& id) {
  const auto it = std::find_if(spec.nodes.begin(), spec.nodes.end(), [&](const NodeSpec& n) { return n.id == id; });
  REQUIRE_MESSAGE(it != spec.nodes.end(), "no node " << id);
  return *it;
}

bool has_node(const ProgramSpec& spec, const std::string& id) {
  return std::any_of(spec.nodes.begin(), spec.nodes.end(), [&](const NodeSpec& n) { return n.id == id; });
}

bool has_edge(const ProgramSpec& spec, const std::string& id) {
  return std::any_of(spec.edges.begin(), spec.edges.end(), [&](const EdgeSpec& e) { return e.id == id; });
}

const EdgeSpec& edge(const ProgramSpec& spec, const std::string& id) {
  const auto it = std::find_if(spec.edges.begin(), spec.edges.end(), [&](const EdgeSpec& e) { return e.id == id; });
  REQUIRE_MESSAGE(it != spec.edges.end(), "no edge " << id);
  return *it;
}

// The outputs and final VarValue of the one run a deterministic graph has, by
// firing the first enabled node until none is.
std::string run(ProgramSpec spec) {
  const Semantics sem(Program::build(std::move(spec)));
  auto s = sem.initial();
  for (bool fired = true; fired;) {
    fired = false;
    for (const auto& t : sem.enabled_transitions(s)) {
      s = sem.fire(s, t).front();
      fired = true;
      break;
    }
  }
  std::string out;
  for (const auto& [fetch, c] : outputs(sem.program(), s)) out += fetch + "=" + content_to_string(sem.program(), c) + " ";
  for (std::size_t x = 0; x < s.var_value.size(); ++x)
    out += sem.program().variable(VarId(x)).name + "=" + s.var_value[x].to_string() + " ";
  return out;
}

std::string int_const(const std::string& name, int v, const std::string& extra = "") {
  return "node { name: '" + name + "' op: 'Const' " + extra +
         " attr { key: 'dtype' value { type: DT_INT32 } } attr { key: 'value' value { tensor { dtype: DT_INT32 "
         "tensor_shape { } int_val: " + std::to_string(v) + " } } } }\n";
}

const char* kVariable = R"(
node { name: 'x' op: 'VariableV2' attr { key: 'dtype' value { type: DT_INT32 } } attr { key: 'shape' value { shape { } } } }
node { name: 'x/Assign' op: 'Assign' input: 'x' input: 'x/initial_value' attr { key: 'use_locking' value { b: true } } }
node { name: 'x/read' op: 'Identity' input: 'x' }
)";

std::string graph_files_text(const fs::path& f) {
  GraphDef g;
  REQUIRE(google::protobuf::TextFormat::ParseFromString(read(f), &g));
  std::string json;
  REQUIRE(google::protobuf::util::MessageToJsonString(g, &json).ok());
  return json;
}

}  // namespace

TEST_CASE("a graph file's encoding and message are told by its contents, not its name") {
  const auto sniffed = [](const char* file, std::string_view contents) {
    const auto s = sniff(file, contents);
    REQUIRE(s);
    return std::pair{s->encoding, s->container};
  };
  const auto graph_def = [&](const char* file, std::string_view contents) {
    const auto [encoding, container] = sniffed(file, contents);
    CHECK(container == Container::graph_def);
    return encoding;
  };
  CHECK(graph_def("g.pb", "\x0a\x05") == Encoding::binary);
  CHECK(graph_def("g.pbtxt", "node {}") == Encoding::text);
  CHECK(graph_def("g.pb", "# written as text\nnode { name: 'a' op: 'NoOp' }\n") == Encoding::text);
  CHECK(graph_def("g.pbtxt", "\x0a\x03\x0a\x01x") == Encoding::binary);
  CHECK(graph_def("g", "\x0a\x03\x0a\x01x") == Encoding::binary);
  CHECK(graph_def("g.pb", "a\x0a\x01:") == Encoding::binary);  // starts like a field, but has binary bytes
  CHECK(graph_def("g.json", R"({"node": [{"name": "a", "op": "NoOp"}]})") == Encoding::json);
  CHECK(sniff("g.json", R"({"name": "first-example", "nodes": []})") == std::nullopt);  // tfsem's own
  // "library" first: tfsem's is an array, a GraphDef's an object.
  CHECK(sniff("g.json", R"({ "library" : [ {"name": "f"} ], "nodes": []})") == std::nullopt);
  CHECK(graph_def("g.json", R"({"library": {"function": []}, "node": []})") == Encoding::json);
  CHECK(sniffed("saved_model.pb", "\x08\x01\x12\x00") == std::pair{Encoding::binary, Container::saved_model});
  CHECK(sniffed("model.pb", "\x08\x01\x12\x00") == std::pair{Encoding::binary, Container::saved_model});
  CHECK(sniffed("saved_model.pb", "\x12\x00") == std::pair{Encoding::binary, Container::saved_model});
  CHECK(sniffed("model.ckpt-100.meta", "\x0a\x03\x22\x01s") == std::pair{Encoding::binary, Container::meta_graph_def});
  CHECK(sniffed("model.pb", "saved_model_schema_version: 1\nmeta_graphs {}") == std::pair{Encoding::text, Container::saved_model});
  CHECK(sniffed("graph.pbtxt", "meta_info_def { tags: 'serve' }") == std::pair{Encoding::text, Container::meta_graph_def});
  CHECK(sniffed("g.json", R"({"metaGraphs": []})") == std::pair{Encoding::json, Container::saved_model});
  CHECK(sniffed("g.json", R"({"graph_def": {}})") == std::pair{Encoding::json, Container::meta_graph_def});
}

namespace {

// The issue threads' graphs, TensorFlow 1's and (in tf2/) TensorFlow 2's.
std::vector<fs::path> issue_graphs() {
  std::vector<fs::path> out;
  for (const auto& f : fs::recursive_directory_iterator(kRoot / "tests/import/issues"))
    if (f.is_regular_file()) out.push_back(f.path());
  return out;
}

}  // namespace

TEST_CASE("binary, text and JSON GraphDefs import to the same graph") {
  for (const auto& path : issue_graphs()) {
    CAPTURE(path.filename().string());
    const auto text = parse(read(path), Encoding::text, "t");
    std::string binary;
    REQUIRE(text.graph.SerializeToString(&binary));
    const auto from_binary = parse(binary, Encoding::binary, "b");
    const auto from_json = parse(graph_files_text(path), Encoding::json, "j");
    const ImportOptions options{{}, true};
    const auto hash = [&](const GraphDef& g) { return Program::build(import_graph(g, "g", options).spec)->hash(); };
    CHECK(hash(from_binary.graph) == hash(text.graph));
    CHECK(hash(from_json.graph) == hash(text.graph));
  }
}

TEST_CASE("round trip: an imported graph written as JSON and read back has the same hash") {
  for (const auto& path : issue_graphs()) {
    CAPTURE(path.filename().string());
    for (bool initialized : {false, true})
      for (bool tf1_refs : {false, true}) {
        const auto imported = load_graph_file(path, {{}, initialized, tf1_refs});
        const auto program = Program::build(imported.spec);
        const auto text = format::program_to_json(program->spec()).dump(1);
        CHECK(Program::build(format::parse_program(nlohmann::json::parse(text)))->hash() == program->hash());
      }
  }
}

TEST_CASE("--tf1-refs: x/read passes the variable on, and its function consumers dereference it (S-DEREF)") {
  const auto imported = load_graph_file(kRoot / "tests/import/issues/13174-assign-mul.pbtxt", {{}, true, true});
  const auto program = Program::build(imported.spec);
  const auto& p = *program;
  CHECK(p.label(*p.find_node("Variable/read")) == "RefIdentity");
  CHECK(p.label(*p.find_node("Variable/read@2")) == "RefIdentity");
  for (const char* mul : {"Mul", "Mul_1"}) {
    CAPTURE(mul);
    const auto n = *p.find_node(mul);
    CHECK(p.edge(p.node(n).in[0]).kind == EdgeKind::variable);
    CHECK(p.variable_of(n) == p.find_variable("Variable"));
  }
  CHECK(imported.notes.back() == "--tf1-refs: 2 functions dereference a variable when it runs (S-DEREF)");
}

TEST_CASE("TensorProto: every dtype tfsem holds, from repeated values, tensor_content and splats") {
  auto tensor = [](const std::string& text) {
    TensorProto t;
    REQUIRE(google::protobuf::TextFormat::ParseFromString(text, &t));
    const auto v = to_tensor(t, "here");
    return v ? v->to_string() : std::string("symbolic");
  };
  CHECK(tensor("dtype: DT_FLOAT tensor_shape { dim { size: 2 } } float_val: 1.5 float_val: -2") == "f32:[1.5,-2.0]");
  CHECK(tensor("dtype: DT_DOUBLE tensor_shape { } double_val: 0.25") == "f64:0.25");
  CHECK(tensor("dtype: DT_INT32 tensor_shape { dim { size: 3 } } int_val: 7") == "i32:[7,7,7]");  // a splat
  CHECK(tensor("dtype: DT_INT32 tensor_shape { dim { size: 2 } }") == "i32:[0,0]");              // no values: zeros
  CHECK(tensor("dtype: DT_INT32 tensor_shape { dim { size: 2 } } tensor_content: '\\001\\000\\000\\000\\377\\377\\377\\377'") ==
        "i32:[1,-1]");
  CHECK(tensor("dtype: DT_INT8 tensor_shape { dim { size: 2 } } tensor_content: '\\377\\001'") == "i32:[-1,1]");
  CHECK(tensor("dtype: DT_UINT8 tensor_shape { dim { size: 2 } } tensor_content: '\\377\\001'") == "i32:[255,1]");
  CHECK(tensor("dtype: DT_INT16 tensor_shape { } int_val: -300") == "i32:-300");
  CHECK(tensor("dtype: DT_UINT16 tensor_shape { } tensor_content: '\\377\\377'") == "i32:65535");
  CHECK(tensor("dtype: DT_INT64 tensor_shape { dim { size: 1 } } int64_val: 5000000000") == "i64:[5000000000]");
  CHECK(tensor("dtype: DT_UINT32 tensor_shape { } uint32_val: 4000000000") == "i64:4000000000");
  CHECK(tensor("dtype: DT_UINT64 tensor_shape { } uint64_val: 9") == "i64:9");
  CHECK(tensor("dtype: DT_BOOL tensor_shape { dim { size: 2 } } bool_val: true bool_val: false") == "bool:[true,false]");
  CHECK(tensor("dtype: DT_HALF tensor_shape { } half_val: 15360") == "f32:1.0");             // 0x3C00
  CHECK(tensor("dtype: DT_BFLOAT16 tensor_shape { } half_val: 16256") == "f32:1.0");         // 0x3F80
  CHECK(tensor("dtype: DT_HALF tensor_shape { } tensor_content: '\\000\\300'") == "f32:-2.0");  // 0xC000
  CHECK(tensor("dtype: DT_INT32 tensor_shape { dim { size: 2 } dim { size: 1 } } int_val: 1 int_val: 2") == "i32:[[1],[2]]");
  CHECK(tensor("dtype: DT_STRING tensor_shape { } string_val: 'op1'") == "symbolic");
  CHECK(tensor("dtype: DT_COMPLEX64 tensor_shape { } scomplex_val: 1 scomplex_val: 2") == "symbolic");
  CHECK_THROWS_WITH_AS(tensor("dtype: DT_UINT64 tensor_shape { } uint64_val: 18446744073709551615"),
                       "here: uint64 values: a value above 2^63 - 1 does not fit tfsem's i64 [I-TENSOR]", InputError);
  CHECK_THROWS_WITH_AS(tensor("tensor_shape { }"), "here: field dtype: the tensor has no dtype [I-TENSOR]", InputError);
}

TEST_CASE("Const: its value on each consumer's input edge; a node with control inputs; a symbol for a string") {
  const auto g = import_text(int_const("c", 5) + int_const("k", 2, "input: '^c'") + R"(
    node { name: 's' op: 'Const' attr { key: 'dtype' value { type: DT_STRING } } attr { key: 'value' value { tensor { dtype: DT_STRING tensor_shape { } string_val: 'hi' } } } }
    node { name: 'a' op: 'Add' input: 'c' input: 'c' }
    node { name: 'b' op: 'Mul' input: 'k' input: 's' })");
  CHECK_FALSE(has_node(g.spec, "c"));
  for (const auto* id : {"c->a:0", "c->a:1"}) {
    REQUIRE(edge(g.spec, id).value_as<Tensor>() != nullptr);
    CHECK(edge(g.spec, id).value_as<Tensor>()->to_string() == "i32:5");
  }
  CHECK(node(g.spec, "k").op == "Const");
  CHECK(edge(g.spec, "^c->k").value_as<Go>() != nullptr);  // GO: a constant needs no firing
  REQUIRE(edge(g.spec, "s->b:1").value_as<Tensor>() != nullptr);
  CHECK(edge(g.spec, "s->b:1").value_as<Tensor>()->to_string() == "s");
  CHECK(g.notes.at(0) == "constants tfsem holds as symbols: 's' (DT_STRING) as s");
}

TEST_CASE("VariableV2: a Var node per consumer; Identity of it (x/read) is a Read; fan-out goes through Copy nodes") {
  const auto g = import_text(int_const("x/initial_value", 3) + kVariable + R"(
    node { name: 'add' op: 'AssignAdd' input: 'x' input: 'x/read' }
    node { name: 'twice' op: 'Add' input: 'x/read' input: 'x/read' })");
  CHECK(node(g.spec, "x").op == "Var");
  CHECK(node(g.spec, "x@2").var == "x");
  CHECK(node(g.spec, "x/read").op == "Read");
  CHECK(node(g.spec, "x/Assign").op == "Write");
  CHECK(node(g.spec, "add").op == "Assign-Add");
  CHECK(node(g.spec, "x/read@copy1").op == "Copy");
  CHECK(node(g.spec, "x/read@copy2").op == "Copy");
  CHECK(edge(g.spec, "x/read@copy2:1").to->node == "twice");
  REQUIRE(g.spec.variables.size() == 1);
  CHECK_FALSE(g.spec.variables[0].init.has_value());  // uninitialized until x/Assign runs
}

TEST_CASE("--initialized: x/Assign of a constant gives x its value, and leaves the graph") {
  const auto g = import_text(int_const("x/initial_value", 3) + kVariable + "node { name: 'init' op: 'NoOp' input: '^x/Assign' }",
                             {{"x/read:0", "init"}, true});
  CHECK_FALSE(has_node(g.spec, "x/Assign"));
  CHECK(g.spec.variables[0].init->to_string() == "i32:3");
  CHECK(g.notes == std::vector<std::string>{"initialized before the run (--initialized): x = i32:3 (x/Assign)",
                                            "control inputs on initializers left out (--initialized): ^x/Assign of 'init'"});
  CHECK(run(g.spec) == "init=GO x/read:0=i32:3 x=i32:3 ");
}

TEST_CASE("fetches: a tensor by NODE:K, a reference read when the run reaches it, an op to run by NODE") {
  const auto g = import_text(int_const("x/initial_value", 1) + kVariable + R"(
    node { name: 'p' op: 'Placeholder' attr { key: 'dtype' value { type: DT_INT32 } } }
    node { name: 'bump' op: 'AssignAdd' input: 'x' input: 'p' })", {{"bump:0", "p:0", "x/Assign"}});
  CHECK(node(g.spec, "bump@fetch0").op == "Read");
  CHECK(node(g.spec, "bump@ref1").var == "x");
  CHECK(edge(g.spec, "^bump->bump@ref1").from->node == "bump");  // the value once bump is done
  CHECK(edge(g.spec, "^x/Assign").fetch_name() == "x/Assign");
  CHECK_FALSE(edge(g.spec, "p").from);  // an input edge
  REQUIRE(edge(g.spec, "p").value_as<Tensor>() != nullptr);
  CHECK(edge(g.spec, "p").value_as<Tensor>()->to_string() == "p");  // a symbol until fed
}

TEST_CASE("resource variables: VarHandleOp, ReadVariableOp, AssignVariableOp, AssignAddVariableOp, AssignSubVariableOp") {
  const auto g = import_text(int_const("one", 1) + int_const("ten", 10) + R"(
    node { name: 'v' op: 'VarHandleOp' attr { key: 'shared_name' value { s: 'shared_v' } } }
    node { name: 'set' op: 'AssignVariableOp' input: 'v' input: 'ten' }
    node { name: 'inc' op: 'AssignAddVariableOp' input: 'v' input: 'one' input: '^set' }
    node { name: 'dec' op: 'AssignSubVariableOp' input: 'v' input: 'one' input: '^inc' }
    node { name: 'h' op: 'Identity' input: 'v' attr { key: 'T' value { type: DT_RESOURCE } } }
    node { name: 'get' op: 'ReadVariableOp' input: 'h' input: '^dec' })", {{"get:0"}});
  CHECK(node(g.spec, "v").var == "shared_v");
  CHECK(node(g.spec, "set").op == "Write");
  CHECK(node(g.spec, "inc").op == "Assign-Add");
  CHECK(node(g.spec, "dec").op == "Assign-Sub");
  CHECK(node(g.spec, "h").op == "RefIdentity");  // a handle passes on
  CHECK(node(g.spec, "get").op == "Read");
  CHECK(run(g.spec) == "get:0=i32:10 shared_v=i32:10 ");
}

TEST_CASE("ApplyGradientDescent: Assign-Sub of alpha * delta with use_locking, else Read, Sub, Write") {
  for (bool locking : {true, false}) {
    CAPTURE(locking);
    const auto g = import_text(int_const("x/initial_value", 9) + kVariable + int_const("lr", 2) + int_const("g", 3) +
                                   "node { name: 'step' op: 'ApplyGradientDescent' input: 'x' input: 'lr' input: 'g' "
                                   "attr { key: 'use_locking' value { b: " + (locking ? "true" : "false") + " } } }",
                               {{}, true});
    CHECK(node(g.spec, "step").op == (locking ? "Assign-Sub" : "Write"));
    CHECK(node(g.spec, "step@step").op == "Mul");
    CHECK(has_node(g.spec, "step@read") != locking);
    CHECK(run(g.spec) == "x=i32:3 ");
  }
}

TEST_CASE("I-RENDEZVOUS: a partitioned graph's _Send and _Recv become a Send and its Recv, paired by their key") {
  auto rendezvous = [](const std::string& op, const std::string& name, const std::string& tensor, const std::string& extra) {
    return "node { name: '" + name + "' op: '" + op + "' " + extra + " attr { key: 'send_device' value { s: '/job:ps/task:0' } }" +
           " attr { key: 'recv_device' value { s: '/job:worker/task:0' } } attr { key: 'tensor_name' value { s: '" + tensor +
           "' } } attr { key: 'T' value { type: DT_INT32 } } }\n";
  };
  // a (on the ps) + b (on the worker), a crossing devices; the _Recv comes first, as a partition may list it.
  const std::string graph = rendezvous("_Recv", "a/recv", "edge_a", "device: '/job:worker/task:0'") +
                            int_const("a", 5, "device: '/job:ps/task:0'") + int_const("b", 2, "device: '/job:worker/task:0'") +
                            rendezvous("_Send", "a/send", "edge_a", "input: 'a' device: '/job:ps/task:0'") +
                            "node { name: 'sum' op: 'Add' input: 'a/recv' input: 'b' device: '/job:worker/task:0' }\n";
  const auto g = import_text(graph, {.fetches = {"sum:0"}});  // the fetch needs the _Send through its _Recv
  CHECK(node(g.spec, "a/send").op == "Send");
  CHECK(node(g.spec, "a/recv").op == "Recv");
  CHECK(node(g.spec, "a/send").device == "/job:ps/task:0");
  CHECK(run(g.spec) == "sum:0=i32:7 ");
  // A _Send to the client (client_terminated, no _Recv here): its value leaves the graph.
  const auto fetched = import_text(int_const("m", 3) + rendezvous("_Send", "_send_m_0", "m:0", "input: 'm' attr { key: 'client_terminated' value { b: true } }"));
  CHECK(node(fetched.spec, "_send_m_0").op == "Identity");
  // A _Recv whose _Send is in another partition's graph, and two _Send with one key.
  CHECK_THROWS_WITH_AS(import_text(rendezvous("_Recv", "r", "edge_a", "") + "node { name: 'n' op: 'Neg' input: 'r' }\n"),
                       doctest::Contains("no _Send of this graph has the key '/job:ps/task:0;/job:worker/task:0;edge_a'"),
                       InputError);
  CHECK_THROWS_WITH_AS(import_text(int_const("a", 1) + rendezvous("_Send", "s1", "t", "input: 'a'") +
                                   rendezvous("_Send", "s2", "t", "input: 'a'")),
                       doctest::Contains("[I-RENDEZVOUS]"), InputError);
}

TEST_CASE("ApplyAdam: one Assign-f per variable with use_locking; else Reads, one uninterpreted update, Writes") {
  std::string text;
  for (const char* v : {"var", "m", "v"})
    text += std::string("node { name: '") + v + "' op: 'VariableV2' }\n";
  for (const char* c : {"b1p", "b2p", "lr", "b1", "b2", "eps", "grad"}) text += int_const(c, 1);
  const auto adam = [&](bool locking) {
    return import_text(text + "node { name: 'adam' op: 'ApplyAdam' input: 'var' input: 'm' input: 'v' input: 'b1p' input: "
                              "'b2p' input: 'lr' input: 'b1' input: 'b2' input: 'eps' input: 'grad' attr { key: 'use_locking' "
                              "value { b: " + (locking ? "true" : "false") + " } } }");
  };
  const auto locked = adam(true);
  CHECK(node(locked.spec, "adam").op == "NoOp");
  CHECK(node(locked.spec, "adam@in0").op == "Assign-ApplyAdam.in0");
  CHECK(node(locked.spec, "adam@in2").op == "Assign-ApplyAdam.in2");
  CHECK(node(locked.spec, "adam@args").op == "ApplyAdam.args");
  const auto racy = adam(false);
  CHECK(node(racy.spec, "adam@update").op == "ApplyAdam");
  CHECK(node(racy.spec, "adam@update@read1").op == "Read");
  CHECK(node(racy.spec, "adam@write2").op == "Write");
  CHECK(racy.notes.at(0) == "variable updates: ApplyAdam (not atomic: Read, f, Write) x1");
}

TEST_CASE("other ops: uninterpreted functions named after the op, stateful ones marked; NoOp, Print, ports and ^control") {
  const auto g = import_text(int_const("shape", 2) + R"(
    node { name: 'r' op: 'RandomUniform' input: 'shape' }
    node { name: 'u' op: 'Unpack' input: 'r' }
    node { name: 'mm' op: 'MatMul' input: 'u:1' input: 'u:0' attr { key: 'transpose_a' value { b: true } } }
    node { name: 'p' op: 'Print' input: 'mm' input: 'u:1' input: 'r' }
    node { name: 'done' op: 'NoOp' input: '^p' })", {{"p:0", "done"}});
  CHECK(node(g.spec, "r").op == "RandomUniform");
  CHECK(node(g.spec, "mm").op == "tf.MatMul");  // transposed: not the registry's MatMul
  CHECK(edge(g.spec, "u:1").from->port == 1);
  CHECK(node(g.spec, "p@data1").op == "Snd");
  CHECK(node(g.spec, "p").op == "Snd");
  CHECK(node(g.spec, "done").op == "NoOp");
  CHECK(edge(g.spec, "^p->done").kind == "control");
  const auto& fs = g.spec.functions;
  const auto stateful = std::find_if(fs.begin(), fs.end(), [](const FunctionSpec& f) { return f.stateful; });
  REQUIRE(stateful != fs.end());
  CHECK(stateful->name == "RandomUniform");
  CHECK(g.notes.at(0) == "uninterpreted ops, deterministic functions whose results are terms; a stateful op's state is not "
                         "modelled: MatMul (1 node), RandomUniform (1 node, stateful), Unpack (1 node)");
  // The one RandomUniform term, shared by both Unpack results, is written once.
  CHECK(run(g.spec) == "done=GO p:0=tf.MatMul(Unpack.1(%1),Unpack.0(%1)) where {%1 = RandomUniform(i32:2)} ");
}

TEST_CASE("the fetches prune the graph before it is checked: a node the run does not need is neither imported, "
          "checked nor noted") {
  // 'bad' takes one data input where Add takes two (I-ARITY), and is an op tfsem does not interpret beside.
  const auto graph = int_const("one", 1) + R"(
    node { name: 'y' op: 'Erf' input: 'one' }
    node { name: 'bad' op: 'Add' input: 'one' }
    node { name: 'save' op: 'SaveV2' input: 'bad' input: '^y' })";
  const auto g = import_text(graph, {{"y:0"}});
  CHECK(!has_node(g.spec, "bad"));
  CHECK(!has_node(g.spec, "save"));
  CHECK(g.notes == std::vector<std::string>{"uninterpreted ops, deterministic functions whose results are terms; a "
                                            "stateful op's state is not modelled: Erf (1 node)"});
  CHECK(run(g.spec) == "y:0=Erf(i32:1) ");
  try {
    import_text(graph, {{"save"}});
    FAIL("the Add of one input is checked once the run needs it");
  } catch (const InputError& e) {
    CHECK(e.diagnostics().at(0).rule == "I-ARITY");
  }
}

TEST_CASE("a call of a library function is an uninterpreted function, stateful as its signature says") {
  const auto g = import_text(int_const("c", 1) + R"(
    node { name: 'call' op: 'sample' input: 'c' }
    library { function { signature { name: 'sample' is_stateful: true } } })", {{"call:0"}});
  CHECK(node(g.spec, "call").op == "sample");
  REQUIRE(g.spec.functions.size() == 1);
  CHECK(g.spec.functions[0].stateful);
  CHECK(g.notes.at(0) == "uninterpreted ops, deterministic functions whose results are terms; a stateful op's state is not "
                         "modelled: sample (a function of the library) (1 node, stateful)");
}

TEST_CASE("a recursive function of the library tfsem interprets is tfsem's library: fib as in models/fib.json") {
  auto imported = load_graph_file(kRoot / "tests/import/graphs/fib.pbtxt", {{"fib_n:0", "fib_m:0"}});
  REQUIRE(imported.spec.library.size() == 1);
  const auto& fib = imported.spec.library[0];
  CHECK(fib.args == std::vector<std::string>{"n"});
  CHECK(fib.results == std::vector<std::string>{"r"});
  CHECK(node(imported.spec, "fib_n").op == "fib");
  CHECK(node(imported.spec, "fib_m").op == "fib");  // a PartitionedCall with f = fib
  CHECK(imported.spec.functions.empty());           // nothing uninterpreted
  const auto program = Program::build(imported.spec);  // round trip through tfsem's JSON
  const auto json = format::program_to_json(program->spec()).dump(1);
  CHECK(Program::build(format::parse_program(nlohmann::json::parse(json)))->hash() == program->hash());
  CHECK(run(std::move(imported.spec)) == "fib_m:0=i32:5 fib_n:0=i32:8 ");
  // The JSON model, fed the same argument.
  auto model = format::load_program_file(kRoot / "models/fib.json");
  format::apply_feed(model, "n=6");
  CHECK(run(std::move(model)) == "fib_n=i32:8 ");
}

TEST_CASE("a call of a function whose body tfsem does not interpret as it is is inlined at its call site (I-CALL)") {
  const auto g = import_text(int_const("c", 1) + R"(
    node { name: 'call' op: 'noisy' input: 'c' }
    library { function {
      signature { name: 'noisy' input_arg { name: 'x' type: DT_INT32 } output_arg { name: 'y' type: DT_INT32 } }
      node_def { name: 'r' op: 'RandomUniform' input: 'x' }
      ret { key: 'y' value: 'r:output:0' } } })", {{"call:0"}});
  CHECK(g.spec.library.empty());
  CHECK(node(g.spec, "call/r").op == "RandomUniform");  // the body's node, named after the call
  REQUIRE(g.spec.functions.size() == 1);
  CHECK(g.spec.functions[0].name == "RandomUniform");
  CHECK(g.spec.functions[0].stateful);
  CHECK(g.notes.at(0) == "functions inlined at their call sites, the body's nodes named after the call (I-CALL): noisy x1");
}

TEST_CASE("a recursive function tfsem does not interpret stays an uninterpreted function") {
  const auto g = import_text(int_const("c", 1) + R"(
    node { name: 'call' op: 'loop' input: 'c' }
    library { function {
      signature { name: 'loop' input_arg { name: 'x' type: DT_INT32 } output_arg { name: 'y' type: DT_INT32 } }
      node_def { name: 'r' op: 'RandomUniform' input: 'x' }
      node_def { name: 'again' op: 'loop' input: 'r:output:0' }
      ret { key: 'y' value: 'again:y:0' } } })", {{"call:0"}});
  CHECK(g.spec.library.empty());
  CHECK(node(g.spec, "call").op == "loop");
  REQUIRE(g.spec.functions.size() == 1);
  CHECK(g.spec.functions[0].name == "loop");
}

TEST_CASE("an inlined call's control inputs gate the body nodes taking no value from the body; its NoOp waits for control_ret") {
  // call2 ordered after call1, as automatic control dependencies order two calls sharing a variable.
  auto text = read(kRoot / "tests/import/graphs/tf2/two-calls.pbtxt");
  const auto at = text.find("input: \"k2\"");
  REQUIRE(at != std::string::npos);
  text.insert(at + std::string("input: \"k2\"").size(), "\n  input: \"^call1\"");
  auto g = import_text(text, {.fetches = {"read:0"}, .initialized = true});
  CHECK(edge(g.spec, "^call1->call2/ReadVariableOp").from->node == "call1");  // no value from the body: gated
  CHECK_FALSE(has_edge(g.spec, "^call1->call2/add"));                        // takes the Read's value
  CHECK(edge(g.spec, "^call1/AssignVariableOp->call1").to->node == "call1");  // the NoOp waits for control_ret
  CHECK(run(std::move(g.spec)) == "read:0=i32:3 v=i32:3 ");
}

TEST_CASE("docs/import.md has a row for every op the import maps") {
  const auto doc = read(kRoot / "docs/import.md");
  for (const auto& r : op_rules()) {
    CAPTURE(r.op);
    CHECK(doc.find("| `" + std::string(r.op) + "` |") != std::string::npos);
  }
}

TEST_CASE("every malformed GraphDef is refused with its expected errors, naming the place") {
  const bool promote = std::getenv("TFSEM_PROMOTE") != nullptr;
  int count = 0;
  for (const auto& f : fs::directory_iterator(kRoot / "tests/import/malformed")) {
    if (f.path().extension() == ".expected") continue;
    ++count;
    const auto rel = fs::relative(f.path(), kRoot);
    CAPTURE(rel.string());
    std::vector<Diagnostic> diags;
    try {
      Program::build(load_graph_file(rel.is_relative() ? kRoot / rel : f.path(), {}).spec);
    } catch (const InputError& e) {
      diags = e.diagnostics();
    }
    REQUIRE_FALSE(diags.empty());
    std::string got;
    for (auto d : diags) {
      if (d.where.starts_with(kRoot.string())) d.where = d.where.substr(kRoot.string().size() + 1);
      got += d.to_string() + "\n";
    }
    auto expected = f.path();
    expected.replace_extension(".expected");
    if (promote) std::ofstream(expected) << got;
    else CHECK(got == read(expected));
  }
  CHECK(count >= 10);
}
