// Each subcommand registers itself on the app and returns the action to run.
#pragma once

#include <CLI/CLI.hpp>

#include <functional>

namespace tfsem::cli {

struct Command {
  CLI::App* app;
  std::function<int()> run;
};

Command add_validate(CLI::App& app);
Command add_trace(CLI::App& app);
Command add_check(CLI::App& app);
Command add_explore(CLI::App& app);
Command add_generate(CLI::App& app);
Command add_dot(CLI::App& app);
Command add_run(CLI::App& app);
Command add_conform(CLI::App& app);
Command add_fuzz(CLI::App& app);
Command add_export(CLI::App& app);
Command add_transform(CLI::App& app);
Command add_partition(CLI::App& app);
Command add_refines(CLI::App& app);
Command add_import(CLI::App& app);

}  // namespace tfsem::cli
