// Loading a large graph from its file: each shape of bench_fast_exec written as
// tfsem's JSON, then read back and timed step by step: reading the file into
// a Program (the reader validates the graph as it reads it: the builder takes
// the edges in pieces as they come), and compiling that for the executor.
// `tfsem run FILE` does these two steps before its first run,
// then prints the program's hash, which is timed apart (a column of its own,
// not in the total: the Program computes it on its first call). The last
// column is the fresh memory the process holds once compiled: run a shape in
// a process of its own (--shape) on a file written before (--reuse) for that
// shape's alone, without what writing the file or another shape freed.
// Usage: bench_load [--nodes N] [--reps R] [--dir DIR] [--reuse] [--shape NAME]
// (prints a Markdown table; the files stay in DIR, by default under the
// system's temp dir, and --reuse reads those already there instead of writing
// them again; --shape times one shape, chain, fan-out-in or layered, alone)
#include "bench/shapes.hpp"
#include "cli/huge_pages.hpp"
#include "fast_exec/compiled.hpp"
#include "formats/json/file_text.hpp"
#include "formats/json/graph_json.hpp"
#include "support/resident_memory.hpp"

#include <algorithm>
#include <array>
#include <chrono>
#include <ctime>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <string_view>

using namespace tfsem;
using Clock = std::chrono::steady_clock;
namespace fs = std::filesystem;

namespace {

double ms_since(Clock::time_point t) { return std::chrono::duration<double, std::milli>(Clock::now() - t).count(); }

// The process's CPU time (user and system) in ms: on a shared machine, what
// the steps cost apart from the time spent waiting for a core.
double cpu_ms() { return 1e3 * static_cast<double>(std::clock()) / CLOCKS_PER_SEC; }

// The fresh memory the load has touched so far, in MiB, the mapped file
// aside: what a cold load waits for the host to back.
double anonymous_mib() { return static_cast<double>(anonymous_resident_bytes().value_or(0)) / (1 << 20); }

struct Timings {
  double load = 1e300, compile = 1e300, cpu = 1e300, hash = 1e300;
  double held = 0;  // anonymous MiB once compiled, in the first repetition
  [[nodiscard]] double total() const { return load + compile; }
};

// The best of `reps` timings of each step.
Timings time_load(const fs::path& file, int reps) {
  Timings best;
  for (int r = 0; r < reps; ++r) {
    std::optional<cli::BackLargeBlocks> backing(std::in_place);  // as `tfsem run` loads and compiles
    const auto cpu = cpu_ms();
    auto t = Clock::now();
    const auto program = format::build_program_text(format::FileText(file).text(), file.string());
    best.load = std::min(best.load, ms_since(t));
    t = Clock::now();
    const fast_exec::CompiledGraph compiled(program, {});
    best.compile = std::min(best.compile, ms_since(t));
    if (r == 0) best.held = anonymous_mib();
    best.cpu = std::min(best.cpu, cpu_ms() - cpu);
    backing.reset();
    t = Clock::now();
    static_cast<void>(program->hash());
    best.hash = std::min(best.hash, ms_since(t));
  }
  return best;
}

void row(const bench::Shape& s, const fs::path& dir, int reps, bool reuse) {
  const auto file = dir / (s.name + ".json");
  if (!reuse || !fs::exists(file)) {
    std::ofstream out(file, std::ios::binary);
    out << format::program_to_json(bench::trivial_graph(s)).dump();
  }
  const auto t = time_load(file, reps);
  std::printf("| %s | %zu | %.1f | %.0f | %.0f | %.0f | %.0f | %.0f | %.0f |\n", s.name.c_str(), s.nodes,
              static_cast<double>(fs::file_size(file)) / (1 << 20), t.load, t.compile, t.total(), t.cpu, t.hash, t.held);
  std::fflush(stdout);
}

// The shapes by name, each made only when its row comes.
const std::array<std::pair<std::string_view, bench::Shape (*)(std::size_t)>, 3> shapes{{
    {"chain", [](std::size_t n) { return bench::chain(n); }},
    {"fan-out-in", [](std::size_t n) { return bench::fan_out_in(n); }},
    {"layered", [](std::size_t n) { return bench::layered(n / 1000, 1000, 1); }},
}};

[[noreturn]] void usage() {
  std::fprintf(stderr, "usage: bench_load [--nodes N] [--reps R] [--dir DIR] [--reuse] [--shape chain|fan-out-in|layered]\n");
  std::exit(2);
}

}  // namespace

int main(int argc, char** argv) {
  std::size_t nodes = 1'000'000;
  int reps = 1;
  fs::path dir;
  bool reuse = false;
  std::string only;  // one shape's row; empty: all three
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--reuse") == 0) {
      reuse = true;
      continue;
    }
    if (i + 1 >= argc) usage();
    if (std::strcmp(argv[i], "--nodes") == 0) nodes = std::strtoull(argv[++i], nullptr, 10);
    else if (std::strcmp(argv[i], "--reps") == 0) reps = std::atoi(argv[++i]);
    else if (std::strcmp(argv[i], "--dir") == 0) dir = argv[++i];
    else if (std::strcmp(argv[i], "--shape") == 0) only = argv[++i];
    else usage();
  }
  if (nodes < 2000 || reps < 1) usage();
  if (!only.empty() && std::none_of(shapes.begin(), shapes.end(), [&](const auto& s) { return s.first == only; })) usage();
  if (dir.empty()) dir = fs::temp_directory_path() / ("tfsem-bench-load-" + std::to_string(nodes));
  fs::create_directories(dir);
  std::printf("files in %s, best of %d\n\n", dir.c_str(), reps);
  std::printf("| shape | nodes | file MiB | read and validate ms | compile ms | total ms | total CPU ms | hash ms | held MiB |\n"
              "|---|---|---|---|---|---|---|---|---|\n");
  for (const auto& [name, shape] : shapes)
    if (only.empty() || name == only) row(shape(nodes), dir, reps, reuse);
}
