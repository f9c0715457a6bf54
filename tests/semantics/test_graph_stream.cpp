// The streaming reader of the JSON graph format (graph_stream.cpp) against the
// document reader (parse_program over nlohmann's DOM): wherever it gives a
// spec, it is the document reader's, path for path; everywhere else the
// document reader reads the text, so parse_program_text's errors are its own.
// And what the writer gives of a function's body reads back as it was.
#include <doctest/doctest.h>

#include "semantics/diagnostic.hpp"
#include "formats/json/array_count.hpp"
#include "formats/json/file_text.hpp"
#include "formats/json/graph_json.hpp"
#include "formats/json/graph_json_parts.hpp"
#include "support/stop_token.hpp"
#include "tests/support/spec_text.hpp"

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <fstream>
#include <functional>
#include <optional>
#include <random>
#include <sstream>
#include <thread>
#include <vector>

#include <sys/stat.h>
#include <unistd.h>

using namespace tfsem;
namespace fs = std::filesystem;

namespace {

std::string read(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// The document reader's spec, or its first error.
std::string by_document(const std::string& text) {
  try {
    return test::spec_text(format::parse_program(format::parse_json_text(text, "f")));
  } catch (const InputError& e) {
    return "error: " + e.diagnostics().front().to_string();
  }
}

// parse_program_text's spec or first error.
std::string by_text(const std::string& text) {
  try {
    return test::spec_text(format::parse_program_text(text, "f"));
  } catch (const InputError& e) {
    return "error: " + e.diagnostics().front().to_string();
  }
}

// What Program::build makes of spec (test::built_text).
std::string built(const ProgramSpec& spec) {
  return test::built_text([&] { return Program::build(spec); });
}

// The same of what stream_build makes of text, reading its edges in pieces;
// nullopt where it leaves the text to the document reader.
std::optional<std::string> built_in_pieces(const std::string& text, format::StreamSplit split) {
  struct Left {};
  try {
    return test::built_text([&] {
      auto program = format::stream_build(text, nullptr, split);
      if (!program) throw Left{};
      return *program;
    });
  } catch (const Left&) {
    return std::nullopt;
  }
}

// Whether the streaming reader read `text` itself, checking that what it read
// is the document reader's spec, and that reading the arrays in parts of one
// element or more, on up to four threads, reads the same or leaves it too;
// and that building the Program while the edges are read, in pieces of one
// edge or more, gives Program::build's Program, or its problems, or leaves
// the text too.
bool streamed(const std::string& text) {
  CAPTURE(text.substr(0, 200));
  const auto spec = format::stream_program(text);
  CHECK(by_text(text) == by_document(text));
  if (spec) CHECK(test::spec_text(*spec) == by_document(text));
  for (const format::StreamSplit split : {format::StreamSplit{2, 1}, format::StreamSplit{4, 2}}) {
    const auto parts = format::stream_program(text, split);
    CHECK(parts.has_value() == spec.has_value());
    if (parts && spec) CHECK(test::spec_text(*parts) == test::spec_text(*spec));
  }
  for (const format::StreamSplit split : {format::StreamSplit{1, 1, 1}, format::StreamSplit{2, 1, 1}, format::StreamSplit{3, 2, 2}}) {
    CAPTURE(split.threads);
    CAPTURE(split.piece);
    const auto pieces = built_in_pieces(text, split);
    CHECK(pieces.has_value() == spec.has_value());
    if (pieces && spec) CHECK(*pieces == built(*spec));
  }
  return spec.has_value();
}

// A graph of `n` Const nodes, each triggered by a GO edge and fetched, as
// compact text; `odd` replaces the id of node `at` (its edges keep the old one).
std::string consts(std::size_t n, std::size_t at = 0, const std::string& odd = "") {
  std::string nodes, edges;
  for (std::size_t i = 0; i < n; ++i) {
    const auto id = "n" + std::to_string(i);
    nodes += std::string(i ? "," : "") + R"({"id":")" + (i == at && !odd.empty() ? odd : id) + R"(","op":"Const","attrs":{"value":)" +
             std::to_string(i % 3) + "}}";
    edges += std::string(i ? "," : "") + R"({"id":"g)" + std::to_string(i) + R"(","kind":"control","to":")" + id +
             R"(","value":"GO"},{"id":"o)" + std::to_string(i) + R"(","kind":"tensor","from":")" + id + R"(:0"})";
  }
  return R"({"name":"consts","nodes":[)" + nodes + R"(],"edges":[)" + edges + "]}";
}

}  // namespace

TEST_CASE("every shipped model, malformed graph and regression reads as the document reader reads it") {
  int files = 0, streamed_files = 0;
  for (const char* dir : {"models", "tests/malformed", "tests/regressions/graphs", "tests/golden"}) {
    const auto root = fs::path(TFSEM_SOURCE_DIR) / dir;
    if (!fs::exists(root)) continue;
    for (const auto& f : fs::recursive_directory_iterator(root)) {
      if (f.path().extension() != ".json") continue;
      CAPTURE(f.path().string());
      ++files;
      streamed_files += streamed(read(f.path())) ? 1 : 0;
    }
  }
  CHECK(files > 50);
  CHECK(streamed_files > files / 2);  // the valid ones, most of them, are read by the stream
}

TEST_CASE("the forms the streaming reader reads itself") {
  // Any key order, white space, a repeated literal (parsed once), input edges of each kind.
  CHECK(streamed(R"( { "edges" : [ {"to":"a","kind":"control","id":"g","value":"GO"},
      {"id":"t","kind":"tensor","to":"b:0","value":{"dtype":"i32","shape":[2],"value":[1,2]}},
      {"id":"u","kind":"tensor","to":"b:1","value":{"dtype":"i32","shape":[2],"value":[1,2]}},
      {"id":"o","kind":"tensor","from":"b","fetch":"y","description":{"any":[1,null]}},
      {"id":"v","kind":"variable","to":"r","value":"x"}, {"id":"w","kind":"tensor","from":"r:0"} ],
    "nodes": [ {"op":"Const","id":"a","attrs":{"value":3}}, {"id":"b","op":"Add","description":"sum"},
               {"id":"r","op":"Read"} ],
    "variables": {"x": 1, "z": null}, "functions": {"F": {"stateful": true}}, "name": "n", "$schema": "s" } )"));
  CHECK(streamed(R"({"nodes":[{"id":"a","op":"NoOp"}],"edges":[],"library":[]})"));
}

TEST_CASE("the nodes that give one attribute text share its value, and a change to one is its own") {
  const auto text = consts(6);  // values 0, 1, 2, 0, 1, 2
  const auto spec = format::stream_program(text);
  REQUIRE(spec);
  CHECK(spec->nodes[0].attrs.shares_with(spec->nodes[3].attrs));
  CHECK_FALSE(spec->nodes[0].attrs.shares_with(spec->nodes[1].attrs));
  auto copy = *spec;
  copy.nodes[3].attrs.edit().insert_or_assign("value", Tensor::scalar(std::int32_t{7}));
  CHECK(copy.nodes[0].attrs.shares_with(spec->nodes[3].attrs));
  CHECK(test::spec_text(*spec) == by_document(text));
  CHECK(test::spec_text(copy) != test::spec_text(*spec));
}

TEST_CASE("an output edge's fetch name that is its id is the default, kept as none; elsewhere it stays to be refused") {
  const std::string graph = R"({"nodes":[{"id":"a","op":"Const","attrs":{"value":1}},{"id":"b","op":"Identity"},
      {"id":"c","op":"Const","attrs":{"value":2}}],"edges":[
      {"id":"g","kind":"control","to":"a","value":"GO"},{"id":"t","kind":"tensor","from":"a:0","to":"b:0"},
      {"id":"o","kind":"tensor","from":"b:0","fetch":"o"},{"id":"p","kind":"tensor","from":"c:0","fetch":"q"},
      {"id":"h","kind":"control","to":"c","value":"GO"}]})";
  for (const auto& spec : {*format::stream_program(graph), format::parse_program_text(graph, "f")}) {
    CHECK_FALSE(spec.edges[2].fetch);
    CHECK(spec.edges[2].fetch_name() == "o");
    REQUIRE(spec.edges[3].fetch);
    CHECK(*spec.edges[3].fetch == "q");
    const auto p = Program::build(spec);
    CHECK(p->fetch(p->edge(EdgeId(std::uint32_t{2}))) == "o");
  }
  CHECK(streamed(graph));
  // The writer leaves it out, wherever the spec came from, and writes the others.
  auto made = format::parse_program_text(graph, "f");
  made.edges[2].fetch = CompactString("o");
  const auto written = format::program_to_json(made).dump();
  CHECK(written.find(R"("fetch":"o")") == std::string::npos);
  CHECK(written.find(R"("fetch":"q")") != std::string::npos);
  // Given on an edge into a node, it is still refused, by either reader.
  const std::string into = R"({"nodes":[{"id":"a","op":"NoOp"}],"edges":[{"id":"g","kind":"control","to":"a","value":"GO","fetch":"g"}]})";
  for (const auto& spec : {*format::stream_program(into), format::parse_program_text(into, "f")})
    CHECK_THROWS_WITH_AS(Program::build(spec), doctest::Contains("only an output edge"), InputError);
  // A default name left as none still meets another edge's same name.
  const std::string twice = R"({"nodes":[{"id":"a","op":"Const","attrs":{"value":1}},{"id":"c","op":"Const","attrs":{"value":2}}],
      "edges":[{"id":"g","kind":"control","to":"a","value":"GO"},{"id":"h","kind":"control","to":"c","value":"GO"},
               {"id":"o","kind":"tensor","from":"a:0","fetch":"o"},{"id":"p","kind":"tensor","from":"c:0","fetch":"o"}]})";
  for (const auto& spec : {*format::stream_program(twice), format::parse_program_text(twice, "f")})
    CHECK_THROWS_WITH_AS(Program::build(spec), doctest::Contains("fetch name 'o' used twice"), InputError);
}

TEST_CASE("an edge's end is none, or a node with its port or without one") {
  static_assert(sizeof(OptionalPortRef) == sizeof(PortRef));
  OptionalPortRef end;
  CHECK_FALSE(end);
  end = PortRef{"b", std::nullopt};  // no port given: still an end
  REQUIRE(end);
  CHECK(end->node == "b");
  CHECK_FALSE(end->port);
  end = PortRef{"b", 0};
  REQUIRE(end);
  CHECK(*end->port == 0);
  end.reset();
  CHECK_FALSE(end);
  CHECK_FALSE(OptionalPortRef(std::nullopt));
  CHECK(OptionalPortRef(PortRef{"c", 999999}));  // the largest port a file can give
  const EdgeSpec no_value;
  CHECK(no_value.value_as<Tensor>() == nullptr);
  CHECK(no_value.value_as<Go>() == nullptr);
}

TEST_CASE("the writer gives every input edge's value back, and what it writes reads back as it was") {
  const auto spec = format::parse_program_text(R"({"nodes":[{"id":"r","op":"Read"},{"id":"b","op":"Identity"},{"id":"c","op":"Identity"}],
      "edges":[{"id":"v","kind":"variable","to":"r","value":"x"},{"id":"g","kind":"control","to":"b","value":"GO"},
               {"id":"t","kind":"tensor","to":"b","value":7},{"id":"o","kind":"tensor","from":"r"},
               {"id":"p","kind":"tensor","from":"b:0","fetch":"sum"},{"id":"u","kind":"tensor","to":"c","value":3},
               {"id":"q","kind":"tensor","from":"c","fetch":""}],
      "variables":{"x":1}})", "f");
  const auto written = format::program_to_json(spec).dump();
  CHECK(written.find(R"("value":"x")") != std::string::npos);
  CHECK(written.find(R"("value":"GO")") != std::string::npos);
  // A port given as 0 and a port not given stay apart (a Port's none is not 0).
  CHECK(written.find(R"("from":"b:0")") != std::string::npos);
  CHECK(written.find(R"("from":"r",)") != std::string::npos);
  // A fetch name given (empty: not fetched) is written back; one not given, not.
  CHECK(written.find(R"("fetch":"")") != std::string::npos);
  CHECK(written.find(R"("fetch":"sum")") != std::string::npos);
  CHECK(written.find(R"("fetch":"o")") == std::string::npos);
  CHECK(written.find(R"("kind":"tensor","value")") == std::string::npos);  // an output edge has no value
  CHECK(by_text(written) == test::spec_text(spec));
  CHECK(Program::build(format::parse_program_text(written, "f"))->hash() == Program::build(spec)->hash());
}

TEST_CASE("a function body's edges keep their arguments and results through the writer; a graph's own edges carry none") {
  const auto fib = format::load_program_file(fs::path(TFSEM_SOURCE_DIR) / "models/fib.json");
  REQUIRE(fib.library.size() == 1);
  const auto& body = fib.library[0].edges;
  CHECK(std::count_if(body.begin(), body.end(), [](const BodyEdgeSpec& e) { return !e.arg.empty(); }) > 0);
  CHECK(std::count_if(body.begin(), body.end(), [](const BodyEdgeSpec& e) { return !e.result.empty(); }) == 1);
  const auto written = format::program_to_json(fib).dump();
  CHECK(written.find("\"arg\":\"n\"") != std::string::npos);
  CHECK(written.find("\"result\":\"r\"") != std::string::npos);
  CHECK(by_text(written) == test::spec_text(fib));
  CHECK(by_text(R"({"nodes":[{"id":"a","op":"Identity"}],"edges":[{"id":"x","kind":"tensor","to":"a","arg":"n"}]})") ==
        "error: /edges/0/arg: unknown key 'arg' (allowed: id, kind, from, to, value, fetch, description) [G-JSON]");
}

TEST_CASE("a large array is read in parts on threads, as one thread reads it") {
  const auto text = consts(3000);
  const auto whole = format::stream_program(text, {1, 1});
  REQUIRE(whole.has_value());
  CHECK(whole->nodes.size() == 3000);
  CHECK(whole->edges.size() == 6000);
  CHECK(test::spec_text(*whole) == by_document(text));
  for (const unsigned threads : {2U, 3U, 8U})
    for (const std::size_t min_part : {1U, 7U, 100U, 2999U}) {
      CAPTURE(threads);
      CAPTURE(min_part);
      const auto parts = format::stream_program(text, {threads, min_part});
      REQUIRE(parts.has_value());
      CHECK(test::spec_text(*parts) == test::spec_text(*whole));
      CHECK(parts->nodes[2999].where == "/nodes/2999");
      CHECK(parts->edges[5999].where == "/edges/5999");
    }
  // A form the stream leaves, in the first element, the last, or one a later
  // part starts at or ends before: the document reader reads the whole text.
  for (const std::size_t at : {0U, 1499U, 1500U, 2999U}) {
    CAPTURE(at);
    for (const char* odd : {R"(n\\x)", R"(\u006e)"}) {
      const auto other = consts(3000, at, odd);
      CHECK_FALSE(format::stream_program(other, {2, 100}).has_value());
      CHECK_FALSE(format::stream_program(other, {8, 1}).has_value());
    }
    // "\u006e" is "n": read by the document reader, the graph is the plain one.
    CHECK(by_text(consts(3000, at, R"(\u006e)" + std::to_string(at))) == test::spec_text(*whole));
  }
  // Junk between an element and the comma a part starts after (element 1500
  // of the nodes, 3000 of the edges, with parts of 1500 and 3000): the part
  // before it must end at that comma, so no split reads it.
  for (const std::string before : {R"(,{"id":"n1500")", R"(,{"id":"g1500")"})
    for (const char* junk : {" x", ":", "}", "]"}) {
      auto bad = text;
      bad.insert(bad.find(before), junk);
      CAPTURE(bad.substr(bad.find(before) - 40, 80));
      for (const format::StreamSplit split : {format::StreamSplit{1, 1}, format::StreamSplit{2, 100}, format::StreamSplit{2, 1500}})
        CHECK_FALSE(format::stream_program(bad, split).has_value());
      CHECK(by_text(bad).starts_with("error: f:1:"));
    }
}

TEST_CASE("a graph's Program is built as its edges are read, in pieces, as from the whole spec") {
  const auto text = consts(3000);
  const auto spec = format::stream_program(text);
  REQUIRE(spec.has_value());
  const auto whole = built(*spec);
  CHECK(whole.starts_with("{"));
  for (const unsigned threads : {1U, 2U, 5U})
    for (const std::size_t piece : {1U, 7U, 1000U, 2999U, 3000U, 5999U}) {
      CAPTURE(threads);
      CAPTURE(piece);
      CHECK(built_in_pieces(text, {threads, 100, piece}) == whole);
    }
  // The edges before the nodes, and after every other member: read once the rest is.
  const auto edges_at = text.find(R"(,"edges":)");
  const auto first = R"({"edges":)" + text.substr(edges_at + 9, text.size() - edges_at - 10) + "," +
                     text.substr(1, edges_at - 1) + "}";
  CHECK(built_in_pieces(first, {2, 100, 64}) == whole);
  // Problems in different pieces: each is found in its place, in order, as
  // the whole spec's build finds them (an edge id used twice across pieces,
  // a port fed twice, an unknown node).
  auto bad = text;
  bad.replace(bad.find(R"("id":"g2500")"), 12, R"("id":"g10")");
  bad.replace(bad.find(R"("to":"n2000")"), 12, R"("to":"n1")");
  bad.replace(bad.find(R"("from":"n100:0")"), 15, R"("from":"zz:0")");
  const auto bad_spec = format::stream_program(bad);
  REQUIRE(bad_spec.has_value());
  const auto problems_whole = built(*bad_spec);
  CHECK(problems_whole.starts_with("error:"));
  CHECK(problems_whole.find("G-UNIQUE") != std::string::npos);
  CHECK(problems_whole.find("G-EDGE-NODE") != std::string::npos);
  for (const std::size_t piece : {1U, 64U, 2500U}) CHECK(built_in_pieces(bad, {2, 100, piece}) == problems_whole);
  // A form the stream leaves, in the first piece, a middle one or the last,
  // after the builder has taken the pieces before it: the document reader
  // reads the whole text, and the result is its.
  for (const std::string odd : {R"({"id":"g0")", R"({"id":"g1500")", R"({"id":"g2999")"}) {
    auto other = text;
    other.replace(other.find(odd), odd.size(), R"({"id":"\u0067)" + odd.substr(8));
    CAPTURE(odd);
    for (const std::size_t piece : {1U, 64U}) CHECK_FALSE(built_in_pieces(other, {2, 100, piece}).has_value());
    CHECK(built(format::parse_program_text(other, "f")) == whole);
    const auto program = format::build_program_text(other, "f");
    CHECK(test::spec_text(program->spec()) == whole);
  }
  // Junk right before the comma a piece starts after: the piece before must end there.
  for (const char* junk : {" x", "}", "]"}) {
    auto broken = text;
    broken.insert(broken.find(R"(,{"id":"g32")"), junk);
    CHECK_FALSE(built_in_pieces(broken, {2, 100, 64}).has_value());
    CHECK_THROWS_AS(format::build_program_text(broken, "f"), InputError);
  }
  // A library is made static over the whole spec: its graph's edges are read at once.
  const auto fib = read(fs::path(TFSEM_SOURCE_DIR) / "models/fib.json");
  CHECK(built_in_pieces(fib, {2, 1, 1}) == built(format::parse_program_text(fib, "f")));
}

TEST_CASE("a stop while the edges are read in pieces ends the build once every thread has stopped") {
  // Fewer nodes than the builder's polls are apart: it first looks at the
  // token on an edge of the third piece, the helpers started (and, as a
  // rule, reading the pieces after it).
  std::string nodes, edges;
  for (int i = 0; i < 100; ++i) nodes += std::string(i ? "," : "") + R"({"id":"n)" + std::to_string(i) + R"(","op":"NoOp"})";
  for (int i = 0; i < 20000; ++i)
    edges += std::string(i ? "," : "") + R"({"id":"g)" + std::to_string(i) + R"(","kind":"control","to":"n)" +
             std::to_string(i % 100) + R"(","value":"GO"})";
  const auto text = R"({"nodes":[)" + nodes + R"(],"edges":[)" + edges + "]}";
  std::atomic<bool> interrupted{true};
  for (const unsigned threads : {1U, 2U, 3U}) {
    StopToken stop;
    stop.watch(&interrupted);
    try {
      (void)format::stream_build(text, &stop, {threads, 100, 64});
      FAIL("no Stopped");
    } catch (const Stopped& e) {
      CHECK(e.reason() == StopReason::interrupt);
      CHECK(e.phase() == "during validation");
    }
  }
  const StopToken going_on;
  const auto program = format::stream_build(text, &going_on, {3, 100, 64});
  REQUIRE(program.has_value());
  CHECK((*program)->edges().size() == 20000);
}

TEST_CASE("the forms it leaves to the document reader, which reads them as before") {
  // An escape or a non-ASCII character in a name, a key given twice (the last one counts).
  CHECK_FALSE(streamed(R"({"nodes":[{"id":"a\"b","op":"NoOp"}],"edges":[{"id":"g","kind":"control","to":"a\"b","value":"GO"}]})"));
  CHECK_FALSE(streamed("{\"nodes\":[{\"id\":\"\xc3\xa9\",\"op\":\"NoOp\"}]}"));
  CHECK_FALSE(streamed(R"({"nodes":[{"id":"a","op":"Add","op":"NoOp"}]})"));
  CHECK_FALSE(streamed(R"({"name":"a","name":"b","nodes":[{"id":"a","op":"NoOp"}]})"));
  // Malformed JSON, anywhere: the error has the line and column.
  for (const char* text : {R"({"nodes":[{"id":"a","op":"NoOp"}] "edges":[]})", R"({"nodes":[{"id":"a","op":"NoOp"}]} x)",
                           R"({"nodes":[{"id":"a","op":"NoOp","attrs":{"value":tru}}]})", R"({"nodes":[)", "",
                           R"({"nodes":[{"id":"a","op":"Const","attrs":{"value":1e999}}]})"})
    CHECK_FALSE(streamed(text));
  CHECK(by_text(R"({"nodes":[{"id":"a","op":"NoOp"}]} x)").starts_with("error: f:1:36: malformed JSON"));
  // A NUL byte, which nlohmann's lexer takes for the end of the text: after a
  // number (the stream read "3\0" as 3) or after a whole graph, it is refused.
  const std::string graph = R"({"nodes":[{"id":"a","op":"Const","attrs":{"value":3)";
  for (const auto& text : {graph + std::string(1, '\0') + "}}]}", graph + "}}]}" + std::string(4, '\0')}) {
    CHECK_FALSE(streamed(text));
    const auto error = by_text(text);
    CHECK(error.starts_with("error: f:1:"));
    CHECK(error.find("a NUL byte") != std::string::npos);
  }
  // A graph the document reader refuses: its first error.
  for (const char* text : {R"([1])", R"({"nodes":{}})", R"({"nodes":[{"id":"a"}]})", R"({"nodes":[{"id":1,"op":"NoOp"}]})",
                           R"({"nodes":[{"id":"a","op":"NoOp","colour":1}]})", R"({"edges":[{"id":"e","kind":"tensor","from":"a:x"}]})",
                           R"({"edges":[{"id":"e","kind":"control","to":"a","value":"STOP"}]})",
                           R"({"nodes":[{"id":"a","op":"Const","attrs":{"value":{"dtype":"i33","value":1}}}]})"})
    CHECK_FALSE(streamed(text));
}

TEST_CASE("a name or a description with an odd byte at any place reads as the document reader reads it") {
  // Names and a description of every length up to 40, each with its last
  // character, or one in the middle, made a byte the scan must stop at: a
  // quote behind an escape, a backslash, a control character, a non-ASCII
  // byte, or (in the description, a raw value skipped as a whole) a bracket,
  // brace or comma inside a string.
  for (std::size_t length = 1; length <= 40; ++length)
    for (const std::size_t at : {length - 1, length / 2}) {
      CAPTURE(length);
      CAPTURE(at);
      std::string name(length, 'n');
      CHECK(streamed(R"({"nodes":[{"id":")" + name + R"(","op":"NoOp"}]})"));
      for (const char* odd : {"\\\"", "\\\\", "\\u0041", "\xc3\xa9", "\x7f"}) {
        auto other = name;
        other.replace(at, 1, odd);
        CAPTURE(other);
        CHECK(streamed(R"({"nodes":[{"id":")" + other + R"(","op":"NoOp"}]})") == (std::string(odd) == "\x7f"));
        const auto text = R"({"edges":[],"nodes":[{"id":"a","op":"NoOp","description":{"k":")" + other + R"("}}]})";
        CHECK(streamed(text));
      }
      for (const char structural : std::string("{}[],")) {
        auto other = name;
        other[at] = structural;
        CHECK(streamed(R"({"nodes":[{"op":"NoOp","description":[")" + other + R"(",{"k":")" + other + R"("}],"id":"a"}]})"));
      }
      std::string control = name;
      control[at] = '\t';
      CHECK_FALSE(streamed(R"({"nodes":[{"id":")" + control + R"(","op":"NoOp"}]})"));
    }
}

TEST_CASE("an array's elements are counted 64 bytes at a time, strings and escapes skipped, as a parser counts them") {
  // Random arrays whose strings are dense with what the count must not take
  // for structure: brackets, braces, commas, escaped quotes and runs of
  // backslashes, across every offset of the 64-byte blocks.
  std::mt19937 random(17);
  const auto pick = [&](std::size_t n) { return static_cast<std::size_t>(random() % n); };
  const auto string = [&] {
    static const std::vector<std::string> pieces = {"a", "{", "}", "[", "]", ",", " ", "\\\"", "\\\\", "\\n", "\xc3\xa9", ":"};
    std::string s = "\"";
    for (std::size_t k = pick(20); k > 0; --k) s += pieces[pick(pieces.size())];
    return s + "\"";
  };
  std::function<std::string(int)> value = [&](int depth) -> std::string {
    switch (depth > 2 ? pick(2) : pick(4)) {
      case 0: return string();
      case 1: return std::to_string(pick(1000));
      case 2: {
        std::string a = "[";
        for (std::size_t k = pick(4); k > 0; --k) a += value(depth + 1) + (k > 1 ? "," : "");
        return a + "]";
      }
      default: {
        std::string o = "{";
        for (std::size_t k = pick(4); k > 0; --k) o += string() + ":" + value(depth + 1) + (k > 1 ? ", " : "");
        return o + "}";
      }
    }
  };
  for (int round = 0; round < 400; ++round) {
    std::string array = "[";
    const std::size_t elements = pick(30);
    for (std::size_t k = 0; k < elements; ++k) array += (k > 0 ? "," : "") + value(0);
    array += "]";
    CAPTURE(array);
    const auto expected = std::max<std::size_t>(1, nlohmann::json::parse(array).size());
    CHECK(format::count_array_elements(array + ", \"after\": [1,2]}") == expected);
    // The commas between elements, every `stride`-th one noted.
    for (const std::size_t stride : {1U, 3U}) {
      std::vector<std::size_t> commas;
      CHECK(format::count_array_elements(array, &commas, stride) == expected);
      CHECK(commas.size() == (expected - 1) / stride);
      for (std::size_t k = 0; k < commas.size(); ++k) {
        REQUIRE(commas[k] < array.size());
        CHECK(array[commas[k]] == ',');
        // Element (k + 1) * stride starts after it: as many elements in the array's text before it.
        const auto before = nlohmann::json::parse(array.substr(0, commas[k]) + "]");
        CHECK(before.size() == (k + 1) * stride);
      }
    }
    // Cut anywhere before its end, or where a 64-byte block ends, the array has
    // no count; the cut is copied to a buffer of its size, so that a sanitizer
    // build sees any read past the text.
    for (const std::size_t cut : {pick(array.size()), (array.size() - 1) / 64 * 64, array.size() - 1}) {
      const std::vector<char> text(array.begin(), array.begin() + static_cast<std::ptrdiff_t>(cut));
      CHECK_FALSE(format::count_array_elements({text.data(), text.size()}).has_value());
    }
  }
}

TEST_CASE("a graph file reads the same mapped (a regular file) and read (a pipe)") {
  const fs::path model = fs::path(TFSEM_SOURCE_DIR) / "models" / "first-example.json";
  const auto text = read(model);
  CHECK(format::FileText(model).text() == text);

  const auto fifo = fs::temp_directory_path() / ("tfsem-test-fifo-" + std::to_string(::getpid()));
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  std::thread writer([&] { std::ofstream(fifo, std::ios::binary) << text; });
  CHECK(format::FileText(fifo).text() == text);
  writer.join();
  fs::remove(fifo);

  const auto empty = fs::temp_directory_path() / ("tfsem-test-empty-" + std::to_string(::getpid()));
  std::ofstream(empty).close();
  CHECK(format::FileText(empty).text().empty());
  fs::remove(empty);

  CHECK_THROWS_AS(format::FileText(fs::path(TFSEM_SOURCE_DIR) / "models"), InputError);
  CHECK_THROWS_AS(format::FileText("no/such/file.json"), InputError);
}
