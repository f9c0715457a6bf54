// The loader every command reads a graph through (formats/load.hpp): files as
// users have them (a SavedModel's directory, a .meta file, a text GraphDef
// under a binary name), feeds (G-FEED, I-FEED) with symbolic values for the
// placeholders nobody fed, validation and pruning (S-PRUNE); each problem
// names the file.
#include <doctest/doctest.h>

#include "formats/graphdef/reader.hpp"
#include "formats/json/graph_json.hpp"
#include "formats/load.hpp"

#include <google/protobuf/unknown_field_set.h>

#include <algorithm>
#include <filesystem>

using namespace tfsem;
namespace fs = std::filesystem;

namespace {

const fs::path kGraphs = fs::path(TFSEM_SOURCE_DIR) / "tests/import/graphs";
const fs::path kPlaceholder = kGraphs / "placeholder.pbtxt";

// The one problem `load` throws.
Diagnostic refusal(const std::function<void()>& load) {
  try {
    load();
  } catch (const InputError& e) {
    REQUIRE(e.diagnostics().size() == 1);
    return e.diagnostics().front();
  }
  FAIL("no InputError");
  return {};
}

struct Loaded {
  std::shared_ptr<const Program> program;
  std::vector<std::string> notes;
};

Loaded load(const fs::path& file, format::LoadOptions options) {
  Loaded out;
  out.program = format::load_program(file, options, [&](const std::string& n) { out.notes.push_back(n); });
  return out;
}

format::LoadOptions fetching(std::vector<std::string> fetches, std::vector<std::string> feeds = {}) {
  format::LoadOptions options;
  options.import.fetches = std::move(fetches);
  options.feeds = std::move(feeds);
  return options;
}

bool has_note(const Loaded& l, const std::string& note) {
  return std::find(l.notes.begin(), l.notes.end(), note) != l.notes.end();
}

// The fetch names of the program's outputs.
std::vector<std::string> fetched(const Program& p) {
  std::vector<std::string> out;
  for (const auto& e : p.edges())
    if (!p.fetch(e).empty()) out.emplace_back(p.fetch(e));
  std::sort(out.begin(), out.end());
  return out;
}

// The initial contents of input edge `id`, as text.
std::string input_value(const Program& p, const std::string& id) {
  const auto e = p.find_edge(id);
  REQUIRE_MESSAGE(e, "no edge " << id);
  return std::get<Tensor>(p.initial(*e)).to_string();
}

}  // namespace

TEST_CASE("an unfed placeholder is the symbolic value named after it, and the note says how to feed it") {
  const auto l = load(kPlaceholder, fetching({"y:0"}));
  CHECK(input_value(*l.program, "x") == "x");
  CHECK(has_note(l, "unfed placeholders taken as symbols: x; --feed NAME=VALUE makes one concrete"));
  const auto fed = load(kPlaceholder, fetching({"y:0"}, {"x:0=20"}));  // NAME:0 names it too
  CHECK(input_value(*fed.program, "x") == "i32:20");
  CHECK(std::none_of(fed.notes.begin(), fed.notes.end(), [](const std::string& n) { return n.starts_with("unfed"); }));
}

TEST_CASE("a feed of a placeholder the run does not consume is accepted, with a note; its value is still checked") {
  const auto l = load(kPlaceholder, fetching({"z:0"}, {"x=20"}));
  CHECK(!l.program->find_edge("x"));
  CHECK(has_note(l, "fed placeholders the run does not consume, their values unused (as TensorFlow accepts them): x"));
  const auto d = refusal([] { format::load_program(kPlaceholder, fetching({"z:0"}, {"x=[1,"})); });
  CHECK(d.where.starts_with(kPlaceholder.string() + ": --feed x"));
}

TEST_CASE("a feed that names no placeholder is refused (I-FEED), naming the file") {
  auto d = refusal([] { format::load_program(kPlaceholder, fetching({"y:0"}, {"nope=1"})); });
  CHECK(d.rule == "I-FEED");
  CHECK(d.where == kPlaceholder.string() + ": --feed");
  CHECK(d.message == "no node 'nope' in the graph");
  d = refusal([] { format::load_program(kPlaceholder, fetching({"y:0"}, {"two=1"})); });
  CHECK(d.message == "Const 'two' is not a placeholder; tfsem feeds Placeholder and PlaceholderWithDefault");
  d = refusal([] { format::load_program(kPlaceholder, fetching({"y:0"}, {"x:1=1"})); });
  CHECK(d.message == "Placeholder 'x' has 1 output");
  d = refusal([] { format::load_program(kPlaceholder, fetching({"y:0"}, {"x"})); });
  CHECK(d.rule == "G-FEED");
  // tfsem's JSON: any input edge, and a feed of none is refused (G-FEED).
  const auto json = fs::path(TFSEM_SOURCE_DIR) / "models/first-example.json";
  d = refusal([&] { format::load_program(json, fetching({}, {"nope=1"})); });
  CHECK(d.rule == "G-FEED");
  CHECK(d.message == "no such edge");
}

TEST_CASE("the encoding is told by the contents: a text GraphDef named .pb loads, with a note") {
  const auto l = load(kGraphs / "text-graph.pb", fetching({"y:0"}));
  CHECK(has_note(l, "text-graph.pb holds protobuf's text format, though its name says binary protobuf; read as what it holds"));
  CHECK(l.program->hash() == load(kGraphs / "text-graph.pb", fetching({"y:0"})).program->hash());
  CHECK(input_value(*l.program, "x") == "x");
}

TEST_CASE("a SavedModel's directory: the MetaGraph tagged serve, its serving_default signature, restored variables") {
  const auto dir = kGraphs / "saved-model";
  const auto l = load(dir, {});
  CHECK(l.program->name() == "saved-model");
  CHECK(fetched(*l.program) == std::vector<std::string>{"y:0"});  // the signature's output
  CHECK(!l.program->find_edge("unused"));  // pruned to the signature's outputs
  REQUIRE(l.program->variables().size() == 1);
  CHECK(l.program->variables()[0].name == "w");
  CHECK(l.program->variables()[0].initial.to_string() == "restored(w)");
  CHECK(has_note(l, "MetaGraph tagged serve, of 2 (--tag chooses another)"));
  CHECK(has_note(l, "signature serving_default: inputs x:0 (placeholders to feed), outputs y:0 (fetched unless --fetch "
                    "names others)"));
  CHECK(has_note(l, "1 variable starts as restored from the SavedModel's checkpoint: each variable v holds the symbolic "
                    "value restored(v)"));
  CHECK(has_note(l, "unfed placeholders taken as symbols: x; --feed NAME=VALUE makes one concrete"));
  // The same SavedModel in the text format, by its contents, and saved_model.pb named directly.
  CHECK(load(kGraphs / "saved-model.pbtxt", {}).program->spec().nodes.size() == l.program->spec().nodes.size());
  CHECK(load(dir / "saved_model.pb", {}).program->hash() == l.program->hash());

  format::LoadOptions train;
  train.choice.tag = "train";
  CHECK(load(dir, train).program->find_node("step"));
  format::LoadOptions fetch_x = fetching({"x:0"});
  CHECK(fetched(*load(dir, fetch_x).program) == std::vector<std::string>{"x:0"});  // --fetch replaces the signature's outputs
}

TEST_CASE("--tag and --signature name what the SavedModel has, and apply to a SavedModel or MetaGraphDef only") {
  const auto dir = kGraphs / "saved-model";
  format::LoadOptions options;
  options.choice.tag = "eval";
  auto d = refusal([&] { format::load_program(dir, options); });
  CHECK(d.rule == "I-OPTION");
  CHECK(d.message == "no MetaGraph is tagged 'eval' (the MetaGraphs' tags: serve; train)");
  options.choice = {"", "classify"};
  d = refusal([&] { format::load_program(dir, options); });
  CHECK(d.message == "no signature 'classify' in the MetaGraph tagged serve; it has serving_default");
  d = refusal([&] { format::load_program(kPlaceholder, options); });
  CHECK(d.where == kPlaceholder.string() + ": --signature");
  CHECK(d.message == "applies to a SavedModel or MetaGraphDef, and " + kPlaceholder.string() + " holds a GraphDef");
}

TEST_CASE("a MetaGraphDef (.meta): its graph; a signature's PlaceholderWithDefault is a placeholder to feed") {
  const auto meta = kGraphs / "model.meta";
  const auto plain = load(meta, fetching({"y:0"}));
  CHECK(has_note(plain, "signatures, none chosen (--signature NAME feeds and fetches one): predict"));
  CHECK(!plain.program->find_edge("keep_prob"));  // its default, 1.0
  REQUIRE(plain.program->variables().empty());
  format::LoadOptions predict;
  predict.choice.signature = "predict";
  const auto l = load(meta, predict);
  CHECK(input_value(*l.program, "keep_prob") == "keep_prob");
  CHECK(input_value(*l.program, "x") == "x");
  CHECK(fetched(*l.program) == std::vector<std::string>{"y:0"});
  predict.feeds = {"keep_prob=0.5"};
  CHECK(input_value(*load(meta, predict).program, "keep_prob") == "f32:0.5");
}

TEST_CASE("fields a text SavedModel has outside tfsem's subset are skipped and listed, with their lines") {
  const auto read = graphdef::parse_meta_graphs("meta_graphs {\n  graph_def { }\n  saver_def { version: V2 }\n}\n",
                                                graphdef::Encoding::text, graphdef::Container::saved_model, "m.pbtxt");
  REQUIRE(read.meta_graphs.size() == 1);
  CHECK(read.skipped == std::vector<std::string>{"Message type \"MetaGraphDef\" has no field named \"saver_def\" (line 3)"});
  auto d = refusal([] { graphdef::parse("node { nme: 'x' }", graphdef::Encoding::text, "g.pbtxt"); });  // a GraphDef's: errors
  CHECK(d.rule == "I-PROTO");
}

TEST_CASE("a binary file's unknown field of its functions' nodes is listed once, by TensorFlow's name") {
  const auto add_field_7 = [](graphdef::NodeDef* n) {  // experimental_type, outside the subset
    n->GetReflection()->MutableUnknownFields(n)->AddLengthDelimited(7, "");
  };
  graphdef::GraphDef g;
  auto* f = g.mutable_library()->add_function();
  for (int k = 0; k < 3; ++k) add_field_7(f->add_node_def());
  auto* n = g.add_node();
  n->set_name("x");
  add_field_7(n);
  const auto read = graphdef::parse(g.SerializeAsString(), graphdef::Encoding::binary, "g.pb");
  CHECK(read.skipped == std::vector<std::string>{"NodeDef field 7 (experimental_type) (node 'x')",
                                                 "NodeDef field 7 (experimental_type)"});
}

TEST_CASE("restored(w) as JSON: a symbolic term literal, read back as the same term") {
  const auto l = load(kGraphs / "saved-model", {});
  const auto text = format::program_to_json(l.program->spec()).dump();
  CHECK(text.find("\"restored(w)\"") != std::string::npos);
  CHECK(Program::build(format::parse_program(nlohmann::json::parse(text)))->hash() == l.program->hash());
  CHECK(format::parse_tensor("f(A,g(B,C))", "/v").to_string() == "f(A,g(B,C))");
  CHECK(refusal([] { format::parse_tensor("f(A", "/v"); }).message == "term 'f(...' lacks its ')'");
  CHECK(refusal([] { format::parse_tensor("f(A)B", "/v"); }).message == "'f(A)B' is not a symbolic term: 'B' follows it");
}

TEST_CASE("the import's notes go to on_note; tfsem's JSON has none") {
  const auto graphdef = fs::path(TFSEM_SOURCE_DIR) / "tests/import/issues/13174-assign-mul.pbtxt";
  format::LoadOptions options;
  options.import.tf1_refs = true;
  const auto l = load(graphdef, options);
  REQUIRE(!l.notes.empty());
  CHECK(l.notes.front().starts_with("--tf1-refs: "));
  const auto json = load(fs::path(TFSEM_SOURCE_DIR) / "models/first-example.json", {{}, {"b=\"Q\""}, true});
  CHECK(json.notes.empty());
  CHECK(json.program->nodes().size() == 4);
}
