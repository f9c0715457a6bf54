// tfsem validate FILE: checks a graph against every rule; each problem names its place.
#include "cli/commands.hpp"
#include "cli/exit_codes.hpp"
#include "cli/graph_options.hpp"
#include "semantics/diagnostic.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <iostream>
#include <memory>

namespace tfsem::cli {

Command add_validate(CLI::App& app) {
  auto* sub = app.add_subcommand("validate", "check a graph against every rule of the format and of section 3.1.1");
  auto opts = std::make_shared<GraphOptions>();
  auto json = std::make_shared<bool>(false);
  opts->add_to(*sub);
  sub->add_flag("--json", *json, "print the verdict as JSON");
  return {sub, [opts, json] {
            try {
              const auto sem = opts->load();
              const auto& p = sem.program();
              const auto functions = static_cast<std::size_t>(std::count_if(
                  p.frames().begin(), p.frames().end(), [](const Frame& f) { return f.kind == Frame::Kind::function; }));
              const auto loops = p.frames().size() - 1 - functions;  // the root frame aside
              if (*json) {
                std::cout << nlohmann::json{{"valid", true}, {"graph", p.name()}, {"hash", p.hash_hex()},
                                            {"nodes", p.nodes().size()}, {"edges", p.edges().size()},
                                            {"variables", p.variables().size()}, {"loop_frames", loops},
                                            {"functions", functions}}
                                 .dump(2)
                          << "\n";
              } else {
                std::cout << "valid: graph " << p.name() << " hash " << p.hash_hex() << ": " << p.nodes().size()
                          << " nodes, " << p.edges().size() << " edges, " << p.variables().size() << " variables"
                          << (loops ? ", " + std::to_string(loops) + " loop frame" + (loops > 1 ? "s" : "") : "")
                          << (functions ? ", " + std::to_string(functions) + " function" + (functions > 1 ? "s" : "") : "") << "\n";
              }
              return int{kSuccess};
            } catch (const InputError& e) {
              if (!*json) throw;
              auto errors = nlohmann::json::array();
              for (const auto& d : e.diagnostics())
                errors.push_back({{"rule", d.rule}, {"where", d.where}, {"subject", d.subject}, {"message", d.message}});
              std::cout << nlohmann::json{{"valid", false}, {"errors", errors}}.dump(2) << "\n";
              return int{kBadInput};
            }
          }};
}

}  // namespace tfsem::cli
