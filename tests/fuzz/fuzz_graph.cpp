// libFuzzer: the JSON graph loader and validation (G-*), as `tfsem validate`
// runs them, then the writers: a valid graph written back as JSON must load
// to the same program (the fixed graphs `check --fixed-graph` writes), and the
// Promela export either writes it or refuses it (X-PROMELA). The streaming
// reader must read each text as the document reader does, or leave it to it,
// and build the same Program as it reads the edges, in pieces.
#include "fuzz_support.hpp"
#include "semantics/diagnostic.hpp"
#include "formats/json/graph_json.hpp"
#include "formats/json/graph_json_parts.hpp"
#include "promela/promela.hpp"
#include "tests/support/spec_text.hpp"

#include <optional>

namespace {

void check_streaming(const std::string& text) {
  using namespace tfsem;
  std::optional<nlohmann::json> doc;
  try {
    doc = format::parse_json_text(text, "fuzz");
  } catch (const InputError&) {
  }
  // Unaffordable: a literal may fill up to 2^28 elements, which a malformed text can hold too.
  if (doc ? !fuzz::affordable(*doc) : text.find("fill") != std::string::npos) return;
  const auto streamed = format::stream_program(text);
  if (!streamed) return;
  std::string expected = "(refused)";
  try {
    if (doc) expected = test::spec_text(format::parse_program(*doc));
  } catch (const InputError&) {
  }
  if (test::spec_text(*streamed) != expected) fuzz::fuzz_fail("the streaming reader reads another graph: " + text);
  // Built as its edges are read, in pieces: the Program of the spec read, or its problems.
  const auto whole = test::built_text([&] { return Program::build(*streamed); });
  for (const format::StreamSplit split : {format::StreamSplit{1, 1, 1}, format::StreamSplit{2, 1, 2}}) {
    const auto got = test::built_text([&] {
      auto in_pieces = format::stream_build(text, nullptr, split);
      if (!in_pieces) fuzz::fuzz_fail("the streaming reader reads a graph it cannot build as it reads: " + text);
      return *in_pieces;
    });
    if (got != whole) fuzz::fuzz_fail("the graph built as its edges are read is another: " + text);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace tfsem;
  const auto text = fuzz::text_of(data, size);
  check_streaming(text);
  const auto program = fuzz::load_program(text);
  if (!program) return 0;
  const auto written = format::program_to_json(program->spec()).dump();
  const auto again = fuzz::load_program(written);
  if (!again || again->hash_hex() != program->hash_hex()) fuzz::fuzz_fail("the graph written back loads differently: " + written);
  try {
    (void)promela::to_promela(*program);
  } catch (const InputError&) {
  }
  return 0;
}
