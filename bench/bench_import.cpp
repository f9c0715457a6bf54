// Importing a large TensorFlow GraphDef: a generated graph of N nodes in the
// shape of a TF1 training graph (variables with initializers and x/read
// snapshots, layers of arithmetic over earlier outputs and constants, ops tfsem
// does not model, updates of the variables, control inputs, a NoOp grouping
// the updates), in its binary and text encodings. Prints a Markdown row per
// encoding: seconds to parse, to import, to validate (Program::build), and
// the total. Usage: bench_import [N] [OUT.pb]   (default 100000; OUT: also
// write the binary GraphDef there)
#include "formats/graphdef/importer.hpp"
#include "formats/graphdef/reader.hpp"

#include <google/protobuf/text_format.h>

#include <chrono>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <random>
#include <string>

using namespace tfsem;
using namespace tfsem::graphdef;

namespace {

void set_type(NodeDef& n, const char* key, DataType t) { (*n.mutable_attr())[key].set_type(t); }

NodeDef& add(GraphDef& g, const std::string& name, const std::string& op, std::initializer_list<std::string> inputs) {
  auto& n = *g.add_node();
  n.set_name(name);
  n.set_op(op);
  for (const auto& in : inputs) n.add_input(in);
  set_type(n, "T", DT_FLOAT);
  return n;
}

void constant(GraphDef& g, const std::string& name, float v) {
  auto& n = add(g, name, "Const", {});
  set_type(n, "dtype", DT_FLOAT);
  auto* t = (*n.mutable_attr())["value"].mutable_tensor();
  t->set_dtype(DT_FLOAT);
  t->mutable_tensor_shape();
  t->add_float_val(v);
}

GraphDef generate(std::size_t nodes) {
  GraphDef g;
  std::mt19937_64 rng(20639);
  auto pick = [&](std::size_t n) { return static_cast<std::size_t>(rng() % n); };
  std::vector<std::string> values, variables, updates;
  const std::size_t vars = std::max<std::size_t>(1, nodes / 100);
  for (std::size_t v = 0; v < vars; ++v) {
    const auto x = "layer" + std::to_string(v) + "/w";
    constant(g, x + "/initial_value", static_cast<float>(v));
    set_type(add(g, x, "VariableV2", {}), "dtype", DT_FLOAT);
    (*add(g, x + "/Assign", "Assign", {x, x + "/initial_value"}).mutable_attr())["use_locking"].set_b(true);
    add(g, x + "/read", "Identity", {x});
    variables.push_back(x);
    values.push_back(x + "/read");
  }
  static const char* kOps[] = {"Add", "Mul", "Sub", "Tanh", "AddN"};
  for (std::size_t i = 0; g.node_size() < static_cast<int>(nodes) - 1; ++i) {
    const auto name = "net/op" + std::to_string(i);
    const auto a = values[pick(values.size())], b = values[pick(values.size())];
    switch (pick(10)) {
      case 0: constant(g, name, 0.5F); break;
      case 1: {
        const auto& x = variables[pick(variables.size())];
        (*add(g, name, "AssignAdd", {x, a}).mutable_attr())["use_locking"].set_b(pick(2) == 0);
        updates.push_back(name);
        continue;
      }
      case 2: add(g, name, kOps[3 + pick(2)], {a}); break;
      default: {
        auto& n = add(g, name, kOps[pick(3)], {a, b});
        if (pick(4) == 0 && !updates.empty()) n.add_input("^" + updates[pick(updates.size())]);
      }
    }
    values.push_back(name);
  }
  auto& train = *g.add_node();
  train.set_name("train");
  train.set_op("NoOp");
  for (const auto& u : updates) train.add_input("^" + u);
  g.mutable_versions()->set_producer(24);
  return g;
}

double cpu_seconds() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) * 1e-9;
}

void measure(const std::string& label, const std::string& bytes, Encoding encoding, std::size_t n) {
  const auto wall = std::chrono::steady_clock::now();
  const double t0 = cpu_seconds();
  const auto read = parse(bytes, encoding, label);
  const double t1 = cpu_seconds();
  auto imported = import_graph(read.graph, "bench", {{"train"}, true});
  const double t2 = cpu_seconds();
  const auto program = Program::build(std::move(imported.spec));
  const double t3 = cpu_seconds();
  const double wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall).count();
  std::printf("| %s | %zu | %zu | %zu | %.3f | %.3f | %.3f | %.3f | %.3f | %.3f |\n", label.c_str(), n, bytes.size(),
              program->nodes().size(), t1 - t0, t2 - t1, t1 - t0 + t2 - t1, t3 - t2, t3 - t0, wall_s);
}

}  // namespace

int main(int argc, char** argv) {
  const std::size_t n = argc > 1 ? std::stoul(argv[1]) : 100000;
  const auto g = generate(n);
  std::string binary, text;
  g.SerializeToString(&binary);
  google::protobuf::TextFormat::PrintToString(g, &text);
  if (argc > 2) std::ofstream(argv[2], std::ios::binary) << binary;
  std::printf("| encoding | GraphDef nodes | bytes | tfsem nodes | parse s | import s | parse + import s | validate s | "
              "total s | total wall s |\n");
  std::printf("|---|---|---|---|---|---|---|---|---|---|\n");
  measure("binary", binary, Encoding::binary, n);
  measure("text", text, Encoding::text, n);
  return 0;
}
