// tfsem fuzz: seeded random graphs, each run through conform; a failing graph
// is saved as a JSON model that reproduces it.
#include "cli/commands.hpp"
#include "conformance/conform.hpp"
#include "cli/exec_options.hpp"
#include "cli/exit_codes.hpp"
#include "cli/output.hpp"
#include "cli/progress.hpp"
#include "models/generate/random_graph.hpp"
#include "formats/json/graph_json.hpp"

#include <filesystem>
#include <iostream>
#include <memory>

namespace tfsem::cli {

namespace {

struct FuzzCmd {
  ExecCli exec;
  std::uint64_t seed = 1;
  std::size_t count = 100;
  std::size_t runs = 20;
  std::string save_dir = "fuzz-failures";
  bool control = false, recursive = false;
  std::uint64_t max_states = 100'000;
};

int run_fuzz(const FuzzCmd& o) {
  std::size_t failed = 0, incomplete = 0;
  CountProgress graphs("graph", o.count);
  for (std::uint64_t s = o.seed; s < o.seed + o.count; ++s) {
    graphs.update(static_cast<std::size_t>(s - o.seed), std::to_string(failed) + " failed, " + std::to_string(incomplete) + " incomplete");
    const auto spec = generate::random_graph(s, o.recursive ? generate::kRandomRecursive
                                                : o.control ? generate::kRandomControl
                                                            : generate::RandomGraphOptions{});
    const auto program = Program::build(spec);
    conform::Options opts;
    opts.runs = o.runs;
    opts.exec = o.exec.make({});
    opts.explore.limits.max_states = o.max_states;
    const auto report = conform::conform(program, opts);
    if (report.conforms()) continue;
    if (!report.complete()) {  // the reference search hit its limits, or a run halted (X-HALT): no verdict
      ++incomplete;
      continue;
    }
    ++failed;
    graphs.end();
    std::filesystem::create_directories(o.save_dir);
    const auto file = o.save_dir + "/" + spec.name + ".json";
    write_text(format::program_to_json(spec).dump(2) + "\n", file);
    std::cout << "FAIL: seed " << s << " saved as " << file << "\n" << conform::report_text(report, 2);
  }
  graphs.end();
  std::cout << "fuzzed: " << o.count
            << (o.recursive ? " graphs with loops, conditionals and recursive calls"
                : o.control ? " graphs with loops and conditionals"
                            : " graphs")
            << " from seed "
            << o.seed << ", " << o.runs << " runs each\nincomplete: " << incomplete << "\nfailed: " << failed << "\n";
  return failed == 0 ? kSuccess : kPropertyViolated;
}

}  // namespace

Command add_fuzz(CLI::App& app) {
  auto* sub = app.add_subcommand("fuzz", "conform the executor on seeded random graphs; save failures as models");
  auto o = std::make_shared<FuzzCmd>();
  o->exec.add_to(*sub);
  sub->add_option("--seed", o->seed, "first seed")->capture_default_str();
  sub->add_option("--count", o->count, "graphs")->capture_default_str();
  sub->add_option("--runs", o->runs, "executor runs per graph")->capture_default_str();
  sub->add_option("--save-dir", o->save_dir, "where failing graphs are written")->capture_default_str();
  sub->add_option("--max-states", o->max_states, "states the reference search may store per graph (beyond: incomplete)")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  auto* control =
      sub->add_flag("--control", o->control, "graphs with conditionals and while loops (tfsem generate random-control)");
  sub->add_flag("--recursive", o->recursive,
                "graphs with conditionals, while loops and recursive functions (tfsem generate random-recursive)")
      ->excludes(control);
  return {sub, [o] { return run_fuzz(*o); }};
}

}  // namespace tfsem::cli
