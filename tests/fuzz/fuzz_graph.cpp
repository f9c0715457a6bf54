// libFuzzer: the JSON graph loader and validation (G-*), as `tfsem validate`
// runs them, then the writers: a valid graph written back as JSON must load
// to the same program (the fixed graphs `check --fixed-graph` writes), and the
// Promela export either writes it or refuses it (X-PROMELA).
#include "fuzz_support.hpp"
#include "semantics/diagnostic.hpp"
#include "semantics/format/graph_json.hpp"
#include "semantics/format/promela.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace tfsem;
  const auto program = fuzz::load_program(fuzz::text_of(data, size));
  if (!program) return 0;
  const auto written = format::program_to_json(program->spec()).dump();
  const auto again = fuzz::load_program(written);
  if (!again || again->hash_hex() != program->hash_hex()) fuzz::fuzz_fail("the graph written back loads differently: " + written);
  try {
    (void)format::to_promela(*program);
  } catch (const InputError&) {
  }
  return 0;
}
