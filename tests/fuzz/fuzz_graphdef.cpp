// libFuzzer: the GraphDef importer, as every command runs it on a .pb, .pbtxt
// or JSON GraphDef file. The first byte picks the encoding (binary, text,
// JSON) and whether variables start initialized (--initialized); the rest is
// the file. Bad input must be an InputError (I-*, G-*); an imported graph that
// validates, written back as tfsem's JSON, must load to the same program.
#include "fuzz_support.hpp"
#include "semantics/diagnostic.hpp"
#include "formats/json/graph_json.hpp"
#include "formats/graphdef/importer.hpp"
#include "formats/graphdef/reader.hpp"

namespace {

using namespace tfsem;

// At most fuzz::kMaxElements in a tensor or shape attribute: a splat Const of a
// larger shape is valid, and the fuzzer would spend its time allocating it.
bool affordable(const graphdef::TensorShapeProto& shape) {
  double elements = 1;
  for (const auto& d : shape.dim()) elements *= static_cast<double>(d.size() < 0 ? 1 : d.size());
  return elements <= fuzz::kMaxElements;
}

bool affordable(const graphdef::AttrValue& a) {
  if (a.has_tensor() && !affordable(a.tensor().tensor_shape())) return false;
  if (a.has_shape() && !affordable(a.shape())) return false;
  for (const auto& t : a.list().tensor())
    if (!affordable(t.tensor_shape())) return false;
  for (const auto& s : a.list().shape())
    if (!affordable(s)) return false;
  return true;
}

// The GraphDef's nodes, function bodies included, within the bounds of fuzz_support.hpp.
bool affordable(const graphdef::GraphDef& g) {
  std::size_t nodes = 0;
  int growing = 0;
  const auto node_ok = [&](const graphdef::NodeDef& n) {
    const bool grows = n.op() == "MatMul" || n.op() == "ConcatV2" || n.op() == "Concat";
    if (++nodes > fuzz::kMaxNodes || (grows && ++growing > fuzz::kMaxGrowing)) return false;
    for (const auto& [name, a] : n.attr())
      if (!affordable(a)) return false;
    return true;
  };
  for (const auto& n : g.node())
    if (!node_ok(n)) return false;
  for (const auto& f : g.library().function())
    for (const auto& n : f.node_def())
      if (!node_ok(n)) return false;
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const auto encoding = static_cast<graphdef::Encoding>(data[0] % 3);
  const graphdef::ImportOptions options{.fetches = {}, .initialized = (data[0] & 4) != 0};
  const auto contents = fuzz::text_of(data + 1, size - 1);
  std::shared_ptr<const Program> program;
  try {
    const auto read = graphdef::parse(contents, encoding, "fuzz.graphdef");
    if (!affordable(read.graph)) return 0;
    program = Program::build(graphdef::import_graph(read.graph, "fuzz", options).spec);
  } catch (const InputError&) {
    return 0;
  }
  const auto written = format::program_to_json(program->spec()).dump();
  try {
    const auto again = Program::build(format::parse_program(format::parse_json_text(written, "written")));
    if (again->hash_hex() != program->hash_hex()) fuzz::fuzz_fail("the imported graph written back loads differently: " + written);
  } catch (const InputError& e) {
    fuzz::fuzz_fail("the imported graph written back is refused (" + std::string(e.what()) + "): " + written);
  }
  return 0;
}
