// The options every command that runs the fast executor shares.
#pragma once

#include "fast_exec/executor.hpp"

#include <CLI/CLI.hpp>

#include <cstdint>
#include <string>

namespace tfsem::cli {

struct ExecCli {
  int threads = 0;  // 0: every hardware thread
  std::int64_t perturb = -1;
  bool unsafe = false;
  std::string device = "cpu";
  std::string calls = "static";

  void add_to(CLI::App& app);
  // Opens the --device gpu accelerator; without one, an InputError that says why.
  [[nodiscard]] fast_exec::ExecOptions make(const TermOptions& terms) const;
};

}  // namespace tfsem::cli
