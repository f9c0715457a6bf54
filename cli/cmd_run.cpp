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
};

int run_run(const RunCmd& o) {
  const auto sem = o.graph.load();
  const auto& p = sem.program();
  const auto exec = o.exec.make(sem.options().terms);
  std::optional<BackLargeBlocks> backing(std::in_place);  // the compiled graph's arrays, as the load's
  fast_exec::Executor session(sem.program_ptr(), exec);
  backing.reset();
  std::vector<Schedule> forced;
  if (!o.replay.empty()) forced = read_schedule_file(sem, o.replay);
  const auto runs = forced.empty() ? o.runs : forced.size();
  nlohmann::json all = nlohmann::json::array();
  if (!o.json) std::cout << "graph " << p.name() << " hash " << p.hash_hex() << "\n";
  if (!o.json && exec.accelerator)
    std::cout << "device " << exec.accelerator->name() << ": " << session.placement().accelerated() << " of "
              << p.nodes().size() << " nodes\n";
  for (std::size_t k = 0; k < runs; ++k) {
    const auto r = forced.empty() ? session.run() : session.run_schedule(forced[k]);
    if (o.json) {
      all.push_back({{"outputs", format::outputs_to_json(p, session.outputs(r))},
                     {"VarValue", format::var_value_to_json(p, r.var_value)},
                     {"stuck", r.stuck},
                     {"copies", {{"host-to-device", r.uploads}, {"device-to-host", r.downloads}}}});
      continue;
    }
    std::cout << "run " << k + 1 << "\n";
    if (exec.accelerator)
      std::cout << "  copies: " << r.uploads << " host to device, " << r.downloads << " device to host\n";
    for (const auto& [f, c] : session.outputs(r)) std::cout << "  output " << f << " = " << content_to_string(p, c) << "\n";
    for (std::size_t x = 0; x < r.var_value.size(); ++x)
      std::cout << "  VarValue: " << p.variable(VarId(x)).name << " = " << r.var_value[x].to_string() << "\n";
    if (r.stuck) std::cout << "  stuck: a node never fired in a context that was started (S-STUCK; tfsem check names it)\n";
  }
  if (o.json) std::cout << nlohmann::json{{"graph", p.name()}, {"hash", p.hash_hex()}, {"runs", all}}.dump(2) << "\n";
  return kSuccess;
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
  return {sub, [o] { return run_run(*o); }};
}

}  // namespace tfsem::cli
