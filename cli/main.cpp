// tfsem: executable semantics of TensorFlow dataflow graphs.
#include "build_info.hpp"
#include "cli/commands.hpp"
#include "cli/exit_codes.hpp"
#include "cli/interrupt.hpp"
#include "cli/output.hpp"
#include "semantics/diagnostic.hpp"

#include <iostream>
#include <new>
#include <vector>

namespace {

using tfsem::cli::Command;

// A command stopped before it had anything to report: its line, or under --json an object.
int report_stop(const Command* command, std::string_view by, std::string_view phase) {
  std::cout << tfsem::cli::stop_report(by, phase, tfsem::cli::asks_json(command != nullptr ? command->app : nullptr));
  return tfsem::cli::kIncomplete;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace tfsem::cli;
  CLI::App app{"tfsem: the operational semantics of TensorFlow graphs (Abadi, Isard & Murray, MAPL 2017), executable"};
  app.set_version_flag("--version", kVersionText, "print the version and the build's options, and exit");
  app.require_subcommand(1);
  const std::vector<Command> commands = {add_validate(app), add_trace(app), add_check(app), add_explore(app), add_generate(app), add_dot(app), add_run(app), add_conform(app), add_fuzz(app), add_export(app), add_transform(app), add_partition(app), add_refines(app), add_import(app)};
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? kSuccess : kBadInput;
  }
  const Command* running = nullptr;
  try {
    for (const auto& c : commands)
      if (c.app->parsed()) return (running = &c)->run();
    return kBadInput;
  } catch (const tfsem::Stopped& e) {  // a phase with nothing to report so far
    return report_stop(running, e.what(), e.phase());
  } catch (const std::bad_alloc&) {  // outside the search, which reports what it found
    const auto& stop = command_stop();
    stop.out_of_memory();
    return report_stop(running, "out of memory", stop.phase());
  } catch (const tfsem::InputError& e) {
    for (const auto& d : e.diagnostics()) std::cerr << "tfsem: error: " << d.to_string() << "\n";
    return kBadInput;
  } catch (const std::exception& e) {
    std::cerr << "tfsem: internal error: " << e.what() << "\n";
    return kInternalError;
  }
}
