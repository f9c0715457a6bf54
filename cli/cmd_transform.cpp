// tfsem transform (--static | --inline DEPTH) FILE: a graph's functions made
// into a graph of the semantics' own operations (semantics/functions.hpp).
#include "cli/commands.hpp"
#include "cli/exit_codes.hpp"
#include "cli/graph_options.hpp"
#include "cli/output.hpp"
#include "semantics/diagnostic.hpp"
#include "formats/json/graph_json.hpp"
#include "formats/load.hpp"
#include "semantics/functions.hpp"

#include <memory>
#include <optional>

namespace tfsem::cli {

namespace {

struct TransformCmd {
  std::string file, output;
  bool make_static = false;
  std::optional<int> inline_depth;
};

int run_transform(const TransformCmd& o) {
  if (o.make_static == o.inline_depth.has_value())
    throw InputError("", "transform", "", "name one transformation: --static or --inline DEPTH");
  ProgramSpec spec;
  try {
    spec = format::load_program_file(o.file);
    spec = o.make_static ? make_static(std::move(spec)) : inline_calls(std::move(spec), *o.inline_depth);
    Program::build(spec);  // what is written is a valid graph
  } catch (const InputError& e) {
    throw format::in_file(e, o.file);
  }
  write_text(format::program_to_json(spec).dump(1) + "\n", o.output);
  return kSuccess;
}

}  // namespace

Command add_transform(CLI::App& app) {
  auto* sub = app.add_subcommand("transform", "turn a graph's functions into Call and Return (--static), or expand its calls (--inline)");
  auto o = std::make_shared<TransformCmd>();
  sub->add_option("FILE", o->file, "graph in tfsem's JSON format, with \"functions\"")->required();
  sub->add_flag("--static", o->make_static,
                "the thesis's static transformation: each body once, a Call per argument and a Return per result at "
                "each call site, a Merge per argument (what check, trace and explore run)");
  sub->add_option("--inline", o->inline_depth,
                  "expand each call into a copy of the body, this many calls deep, as TensorFlow r1.4 does at run time; "
                  "a deeper call outputs an error element saying it was refused")
      ->check(CLI::Range(0, 64));
  sub->add_option("-o,--output", o->output, "write to this file instead of stdout");
  return {sub, [o] { return run_transform(*o); }};
}

}  // namespace tfsem::cli
