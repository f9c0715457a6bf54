// tfsem run FILE: the fast executor's outputs and final variables, over K runs
// of one session; --replay forces the order of a witness schedule file.
#include "cli/commands.hpp"
#include "cli/exec_options.hpp"
#include "cli/exit_codes.hpp"
#include "cli/graph_options.hpp"
#include "cli/huge_pages.hpp"
#include "cli/schedule_file.hpp"
#include "formats/json/graph_json.hpp"

#include <nlohmann/json.hpp>

#include <iostream>
#include <memory>
#include <optional>

namespace tfsem::cli {

namespace {

struct RunCmd {
  GraphOptions graph;
  ExecCli exec;
  std::size_t runs = 1;
  std::string replay;
  bool json = false;
  std::uint32_t max_iterations = 0, max_depth = 0;
};

int run_run(const RunCmd& o) {
  const auto sem = o.graph.load();
  const auto& p = sem.program();
  auto exec = o.exec.make(sem.options().terms);
  exec.max_iterations = o.max_iterations;
  exec.max_depth = o.max_depth;
  std::optional<BackLargeBlocks> backing(std::in_place);  // the compiled graph's arrays, as the load's
  fast_exec::Executor session(sem.program_ptr(), exec);
  backing.reset();
  std::vector<Schedule> forced;
  if (!o.replay.empty()) forced = read_schedule_file(sem, o.replay);
  const auto runs = forced.empty() ? o.runs : forced.size();
  nlohmann::json all = nlohmann::json::array();
  bool halted = false;
  if (!o.json) std::cout << "graph " << p.name() << " hash " << p.hash_hex() << "\n";
  if (!o.json && exec.accelerator)
    std::cout << "device " << exec.accelerator->name() << ": " << session.placement().accelerated() << " of "
              << p.nodes().size() << " nodes\n";
  for (std::size_t k = 0; k < runs && !halted; ++k) {
    const auto r = forced.empty() ? session.run() : session.run_schedule(forced[k]);
    // X-HALT: the runs stop at a halted one, whose reason is the answer.
    halted = r.halt.has_value();
    const auto halt = halted ? fast_exec::halt_text(sem, *r.halt) : std::string();
    if (o.json) {
      all.push_back({{"outputs", format::outputs_to_json(p, session.outputs(r))},
                     {"VarValue", format::var_value_to_json(p, r.var_value)},
                     {"stuck", r.stuck},
                     {"copies", {{"host-to-device", r.uploads}, {"device-to-host", r.downloads}}}});
      if (halted) all.back()["halted"] = halt;
      continue;
    }
    std::cout << "run " << k + 1 << "\n";
    if (exec.accelerator)
      std::cout << "  copies: " << r.uploads << " host to device, " << r.downloads << " device to host\n";
    for (const auto& [f, c] : session.outputs(r)) std::cout << "  output " << f << " = " << content_to_string(p, c) << "\n";
    for (std::size_t x = 0; x < r.var_value.size(); ++x)
      std::cout << "  VarValue: " << p.variable(VarId(x)).name << " = " << r.var_value[x].to_string() << "\n";
    if (r.stuck) std::cout << "  stuck: a node never fired in a context that was started (S-STUCK; tfsem check names it)\n";
    if (halted) std::cout << "  halted: " << halt << " (X-HALT); what it did not fetch is EMPTY\n";
  }
  if (o.json) std::cout << nlohmann::json{{"graph", p.name()}, {"hash", p.hash_hex()}, {"runs", all}}.dump(2) << "\n";
  return halted ? kIncomplete : kSuccess;
}

}  // namespace

Command add_run(CLI::App& app) {
  auto* sub = app.add_subcommand("run", "run the graph on the fast parallel executor");
  auto o = std::make_shared<RunCmd>();
  o->graph.add_to(*sub);
  o->exec.add_to(*sub);
  sub->add_option("--runs", o->runs, "runs of one session (variables persist)")->check(CLI::PositiveNumber)->capture_default_str();
  sub->add_option("--replay", o->replay, "force the order of a schedule file written by tfsem check (one run per line)");
  sub->add_flag("--json", o->json, "print the results as JSON");
  sub->add_option("--max-iterations", o->max_iterations,
                  "halt (exit 3) naming the loop, before a run would start this iteration of a loop (0: no bound)")
      ->capture_default_str();
  sub->add_option("--max-depth", o->max_depth,
                  "halt (exit 3) naming the Call, before a run would make a call deeper than this (0: no bound)")
      ->capture_default_str();
  return {sub, [o] { return run_run(*o); }};
}

}  // namespace tfsem::cli
