// The options every exploring command shares: the reduction, the limits, and
// a progress line on a terminal.
#pragma once

#include "explorer/distributed.hpp"
#include "explorer/explore.hpp"
#include "support/resident_memory.hpp"

#include <CLI/CLI.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace tfsem::cli {

struct SearchOptions {
  std::string por = "rf";
  std::uint64_t max_states = 50'000'000;
  std::uint64_t max_memory_mib = 0;  // 0: the machine's bound, less a margin (default_max_memory)
  double timeout_s = 0;
  Bounds bounds{};
  unsigned threads = 1;
  bool distributed = false;
  std::string checkpoint_dir;        // --checkpoint
  double checkpoint_every_s = 600;   // --checkpoint-every
  std::string resume_dir;            // --resume

  // Arms the command's stop token (command_stop) with these limits, the
  // timeout counted from now: called as the command starts, so that every
  // phase, the import first, keeps to them.
  StopToken& start() const;
  // The limit on the resident memory, and what sets it.
  [[nodiscard]] MemoryBound memory_bound() const;

  // threads_flag: another name where --threads means something else (conform).
  void add_to(CLI::App& app, bool with_por = true, const std::string& threads_flag = "--threads");
  // --distributed (check and explore).
  void add_distributed(CLI::App& app);
  // --checkpoint, --checkpoint-every and --resume (check and explore).
  void add_checkpoints(CLI::App& app);
  // The checkpoints of the command's search (none without --checkpoint or
  // --resume); `required`: --resume refuses a directory without this search's checkpoint.
  [[nodiscard]] std::optional<explorer::Checkpoints> checkpoints(bool required) const;
  // The explorer's options for `por`, stopped by the command's stop token;
  // progress goes to stderr when it is a terminal.
  [[nodiscard]] explorer::ExploreOptions make(explorer::Por por) const;
  [[nodiscard]] explorer::ExploreOptions make() const { return make(*explorer::parse_por(por)); }

  // The search, on this process or, with --distributed, over the MPI job's
  // ranks (explorer/distributed.hpp); then `ranks` gets each rank's report.
  // Without MPI, --distributed throws InputError saying why. It writes and
  // resumes from checkpoints(first) (`first`: the command's first search).
  explorer::Result explore(const Semantics& sem, const explorer::ExploreOptions& o,
                           std::vector<explorer::distributed::RankReport>* ranks = nullptr, bool first = true) const;
  // Whether this process reports: not a rank other than 0 of a distributed search.
  [[nodiscard]] bool reports() const;
  // The exit code: with --distributed every rank exits with rank 0's.
  [[nodiscard]] int exit_code(int code) const;
};

// --max-iterations and --max-depth; `stop` says what reaching them does.
void add_bounds(CLI::App& app, Bounds& bounds, const std::string& stop);

// Ends the progress line, if one was drawn.
void end_progress(const explorer::ExploreOptions& o, const explorer::Result& r);

}  // namespace tfsem::cli
