// The executor's scheduling overhead per node on trivial nodes, side by side
// with oneTBB's flow_graph on the same DAGs in the same process; and the
// speedup of all threads over one on heavy MatMul kernels. Each executor's runs
// write into one RunResult (Executor::run(RunResult&)), as a flow_graph is
// built once and run again.
// Usage: bench_fast_exec [--quick]   (prints a Markdown table)
#include "bench/shapes.hpp"
#include "fast_exec/executor.hpp"

#include <oneapi/tbb/flow_graph.h>
#include <oneapi/tbb/global_control.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <thread>

using namespace tfsem;
using Clock = std::chrono::steady_clock;

namespace {

double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

// The best of `reps` timings of f, in seconds.
template <class F>
double best_of(int reps, F&& f) {
  double best = 1e300;
  for (int i = 0; i < reps; ++i) {
    const auto t = Clock::now();
    f();
    best = std::min(best, seconds_since(t));
  }
  return best;
}

double tbb_seconds(const bench::Shape& s, int threads, int reps) {
  tbb::global_control limit(tbb::global_control::max_allowed_parallelism, static_cast<std::size_t>(threads));
  tbb::flow::graph g;
  std::vector<tbb::flow::continue_node<tbb::flow::continue_msg>> nodes;
  nodes.reserve(s.nodes);
  std::vector<bool> has_input(s.nodes, false);
  for (const auto& e : s.edges) has_input[e.second] = true;
  for (std::size_t i = 0; i < s.nodes; ++i) nodes.emplace_back(g, [](const tbb::flow::continue_msg&) {});
  for (const auto& [a, b] : s.edges) tbb::flow::make_edge(nodes[a], nodes[b]);
  return best_of(reps, [&] {
    for (std::size_t i = 0; i < s.nodes; ++i)
      if (!has_input[i]) nodes[i].try_put(tbb::flow::continue_msg());
    g.wait_for_all();
  });
}

void row(const bench::Shape& s, int all, int reps) {
  const auto t0 = Clock::now();
  const auto program = Program::build(bench::trivial_graph(s));
  const double build = seconds_since(t0);
  double ours[2], theirs[2], prep = 0;
  const int threads[2] = {1, all};
  for (int k = 0; k < 2; ++k) {
    const auto t1 = Clock::now();
    fast_exec::ExecOptions o;
    o.threads = threads[k];
    fast_exec::Executor executor(program, o);
    prep = seconds_since(t1);
    fast_exec::RunResult result;
    ours[k] = best_of(reps, [&] { executor.run(result); });
    theirs[k] = tbb_seconds(s, threads[k], reps);
  }
  const double n = static_cast<double>(s.nodes);
  std::printf("| %s | %zu | %.0f | %.1f | %.1f | %.1f | %.1f | %.1f | %.2f | %.2f |\n", s.name.c_str(), s.nodes, build * 1e3,
              prep * 1e3, ours[0] / n * 1e9, ours[1] / n * 1e9, theirs[0] / n * 1e9, theirs[1] / n * 1e9, ours[0] / theirs[0],
              ours[1] / theirs[1]);
}

}  // namespace

int main(int argc, char** argv) {
  const bool quick = argc > 1 && std::strcmp(argv[1], "--quick") == 0;
  const int all = static_cast<int>(std::max(1U, std::thread::hardware_concurrency()));
  const std::size_t big = quick ? 20'000 : 1'000'000;
  const int reps = quick ? 2 : 5;
  std::printf("threads: 1 and %d\n\n", all);
  std::printf("| shape | nodes | build graph ms | compile ms | tfsem 1T ns/node | tfsem %dT ns/node | flow_graph 1T ns/node | "
              "flow_graph %dT ns/node | ratio 1T | ratio %dT |\n|---|---|---|---|---|---|---|---|---|---|\n",
              all, all, all);
  row(bench::chain(big), all, reps);
  row(bench::fan_out_in(big), all, reps);
  row(bench::layered(big / 1000, 1000, 1), all, reps);

  std::printf("\n| MatMul graph | tfsem 1T s | tfsem %dT s | speedup |\n|---|---|---|---|\n", all);
  for (std::size_t n : {std::size_t{256}, std::size_t{512}}) {
    const auto program = Program::build(bench::matmul_graph(quick ? 4 : 16, n));
    double t[2];
    const int threads[2] = {1, all};
    for (int k = 0; k < 2; ++k) {
      fast_exec::ExecOptions o;
      o.threads = threads[k];
      fast_exec::Executor executor(program, o);
      fast_exec::RunResult result;
      t[k] = best_of(reps, [&] { executor.run(result); });
    }
    std::printf("| %s | %.3f | %.3f | %.2fx |\n", program->name().c_str(), t[0], t[1], t[0] / t[1]);
  }
}
