#include "cli/search_options.hpp"

#include "build_info.hpp"
#include "cli/interrupt.hpp"
#include "cli/progress.hpp"
#include "semantics/diagnostic.hpp"

#include <cctype>
#include <cstdio>
#include <string>

namespace tfsem::cli {

namespace {

// The address space kept for the report when an allocation fails.
constexpr std::size_t kReserve = std::size_t{32} << 20;

// A duration: a number of seconds, or a number with s, m or h after it.
std::string parse_duration(std::string& text, double& seconds) {
  const auto unit = !text.empty() && std::string("smh").find(text.back()) != std::string::npos ? text.back() : 's';
  const auto number = std::isalpha(static_cast<unsigned char>(text.empty() ? ' ' : text.back())) != 0 ? text.substr(0, text.size() - 1) : text;
  std::size_t used = 0;
  double value = 0;
  try {
    value = std::stod(number, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (number.empty() || used != number.size() || !(value > 0))
    return "a duration is a positive number of seconds, or one with s, m or h after it (30s, 10m, 2h): " + text;
  seconds = value * (unit == 'h' ? 3600 : unit == 'm' ? 60 : 1);
  return "";
}

}  // namespace

void add_bounds(CLI::App& app, Bounds& bounds, const std::string& stop) {
  app.add_option("--max-iterations", bounds.max_iterations,
                 stop + " naming the loop, when a behaviour would start this iteration of a loop")
      ->check(CLI::Range(1U, 1U << 20))
      ->capture_default_str();
  app.add_option("--max-depth", bounds.max_depth,
                 stop + " naming the function, when a behaviour would make a call deeper than this")
      ->check(CLI::Range(1U, 1U << 20))
      ->capture_default_str();
}

void SearchOptions::add_to(CLI::App& app, bool with_por, const std::string& threads_flag) {
  if (with_por)
    app.add_option("--por", por, "partial-order reduction: none (every interleaving), stubborn, rf")
        ->check(CLI::IsMember({"none", "stubborn", "rf"}))
        ->capture_default_str();
  app.add_option("--max-states", max_states, "stop, INCOMPLETE, once more than this many states are stored")->capture_default_str();
  app.add_option("--max-memory", max_memory_mib,
                 "stop, INCOMPLETE, before the process's resident memory would exceed this many MiB (default: the "
                 "smallest of the physical memory, RLIMIT_AS, RLIMIT_DATA and the cgroup's limit, less an eighth)");
  app.add_option("--timeout", timeout_s,
                 "stop, INCOMPLETE, this many seconds after the command starts, in whatever phase (0: none)");
  add_bounds(app, bounds, "stop, INCOMPLETE,");
  app.add_option(threads_flag, threads, "threads expanding states (the results do not depend on it)")
      ->check(CLI::Range(1U, 256U))
      ->capture_default_str();
}

void SearchOptions::add_distributed(CLI::App& app) {
  app.add_flag("--distributed", distributed,
               "under mpirun: the states partitioned over the ranks, rank 0 reporting (docs/distributed.md)");
}

void SearchOptions::add_checkpoints(CLI::App& app) {
  app.add_option("--checkpoint", checkpoint_dir,
                 "write the search's checkpoints into this directory, one per reduction: every --checkpoint-every, when "
                 "it ends, and when it stops on an interrupt, its timeout or its limits (docs/checkpoints.md)");
  app.add_option("--checkpoint-every", checkpoint_every_s, "between checkpoints: seconds, or with s, m or h after it")
      ->transform([this](std::string text) {
        auto error = parse_duration(text, checkpoint_every_s);
        if (!error.empty()) throw CLI::ValidationError("--checkpoint-every", error);
        return std::to_string(checkpoint_every_s);
      })
      ->default_str("10m");
  app.add_option("--resume", resume_dir,
                 "continue the search from its checkpoint in this directory (of the same graph, tfsem and search "
                 "options); its checkpoints go on being written there");
}

std::optional<explorer::Checkpoints> SearchOptions::checkpoints(bool required) const {
  if (checkpoint_dir.empty() && resume_dir.empty()) return std::nullopt;
  if (!checkpoint_dir.empty() && !resume_dir.empty() && checkpoint_dir != resume_dir)
    throw InputError("", "--resume", "", "a resumed search writes its checkpoints where it resumed from, not to --checkpoint " + checkpoint_dir);
  explorer::Checkpoints c;
  c.dir = resume_dir.empty() ? checkpoint_dir : resume_dir;
  c.every_s = checkpoint_every_s;
  c.resume = !resume_dir.empty();
  c.required = required;
  c.version = std::string(kVersionText).substr(0, std::string(kVersionText).find('\n'));
  return c;
}

MemoryBound SearchOptions::memory_bound() const {
  if (max_memory_mib > 0) return {max_memory_mib << 20, "--max-memory"};
  return default_max_memory();
}

StopToken& SearchOptions::start() const {
  auto& token = command_stop();
  if (timeout_s > 0)
    token.set_deadline(StopToken::Clock::now() +
                       std::chrono::duration_cast<StopToken::Clock::duration>(std::chrono::duration<double>(timeout_s)));
  token.set_max_memory(memory_bound().bytes);
  token.reserve(kReserve);
  return token;
}

explorer::ExploreOptions SearchOptions::make(explorer::Por p) const {
  explorer::ExploreOptions o;
  o.por = p;
  o.threads = threads;
  o.limits.max_states = max_states;
  o.limits.max_memory_bytes = memory_bound().bytes;
  o.limits.bounds = bounds;
  o.limits.stop = &command_stop();
  if (progress_shown())
    o.progress = [limits = o.limits](const explorer::Progress& pr) {
      if (pr.seconds >= 1) draw_progress(search_progress_text(pr, limits));
    };
  return o;
}

explorer::Result SearchOptions::explore(const Semantics& sem, const explorer::ExploreOptions& o,
                                       std::vector<explorer::distributed::RankReport>* ranks, bool first) const {
  const auto checkpointing = checkpoints(first);
  const auto* c = checkpointing ? &*checkpointing : nullptr;
  if (!distributed) return explorer::explore(sem, o, c);
  if (!explorer::distributed::available())
    throw InputError("", "--distributed", "", explorer::distributed::unavailable_reason());
  if (threads > 1)
    throw InputError("", "--threads", "", "--distributed expands with one thread per rank: start more ranks instead");
  auto report = explorer::distributed::explore(sem, o, c);
  if (ranks) *ranks = std::move(report.ranks);
  return std::move(report.result);
}

bool SearchOptions::reports() const { return !distributed || explorer::distributed::rank() == 0; }

int SearchOptions::exit_code(int code) const { return distributed ? explorer::distributed::agree(code) : code; }

void end_progress(const explorer::ExploreOptions& o, const explorer::Result& r) {
  if (o.progress && r.seconds >= 1) std::fprintf(stderr, "\n");
}

}  // namespace tfsem::cli
