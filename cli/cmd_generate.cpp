// tfsem generate FAMILY N: a benchmark family's graph of size N, or with
// FAMILY random (-control, -recursive), the seeded random graph N; written as
// the JSON format.
#include "cli/commands.hpp"
#include "cli/exit_codes.hpp"
#include "cli/output.hpp"
#include "models/generate/families.hpp"
#include "models/generate/random_graph.hpp"
#include "formats/json/graph_json.hpp"

#include <algorithm>
#include <iostream>
#include <memory>

namespace tfsem::cli {

namespace {

struct GenerateCmd {
  std::string family;
  std::uint64_t n = 0;
  std::string output;
  bool list = false;
};

int run_generate(const GenerateCmd& o) {
  if (o.list || o.family.empty()) {
    for (const auto* list : {&generate::families(), &generate::training_shapes()})
      for (const auto& f : *list) std::cout << f.name << ": " << f.description << "\n";
    for (const auto& k : generate::kRandomKinds) std::cout << k.name << ": " << k.description << "\n";
    return o.list ? kSuccess : kBadInput;
  }
  const auto* kind = std::find_if(std::begin(generate::kRandomKinds), std::end(generate::kRandomKinds),
                                  [&](const auto& k) { return o.family == k.name; });
  const auto spec = kind != std::end(generate::kRandomKinds)
                        ? generate::random_graph(o.n, kind->options)
                        : generate::family_graph(o.family, static_cast<int>(std::min<std::uint64_t>(o.n, 1 << 20)));
  Program::build(spec);  // a generator bug must not leave an invalid file behind
  write_text(format::program_to_json(spec).dump(2) + "\n", o.output);
  return kSuccess;
}

}  // namespace

Command add_generate(CLI::App& app) {
  auto* sub = app.add_subcommand("generate", "write a benchmark family's graph, or a seeded random graph, as JSON");
  auto o = std::make_shared<GenerateCmd>();
  sub->add_option("FAMILY", o->family, "a family or a kind of random graph (see --list)");
  sub->add_option("N", o->n, "the size, or the seed for random");
  sub->add_option("-o,--output", o->output, "write to this file instead of stdout");
  sub->add_flag("--list", o->list, "list the families");
  return {sub, [o] { return run_generate(*o); }};
}

}  // namespace tfsem::cli
