// The thesis's evaluation (seed 003, section 6, Tables 1-4) on the fast
// executor: fib, Ackermann, Takeuchi and Primes as recursive graphs
// (models/thesis-*.json, fed the table's inputs), each result checked against
// the thesis's, timed with static and dynamic calls on 1 and 2 threads (each
// the best of --reps runs, a fresh executor each, the four ways taking turns),
// with what two threads gain and how many tasks one handed the other (work
// stealing), beside the thesis's
// TensorFlow r1.4 seconds (measured on other hardware) and its "Speeding"
// column, (dynamic - static) / dynamic. Then a loop's overhead: a
// while loop with a trivial body (models/while-sum.json), in ns per iteration
// and per node fired, beside a chain of trivial nodes without control flow.
//
// Usage: thesis_tables [--quick] [--row LABEL]... [--reps N] [SOURCE_DIR]   (--quick: the first row of
// each table; --row: only the rows so labelled, e.g. 'fib(30)'; --reps: each time the best of N runs, 1 by default)
#include "bench/shapes.hpp"
#include "fast_exec/executor.hpp"
#include "formats/json/graph_json.hpp"

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <string>
#include <vector>

using namespace tfsem;

namespace {

struct Row {
  const char* model;  // models/NAME.json
  const char* label;
  std::vector<std::pair<const char*, std::int32_t>> feeds;  // input edge, value
  std::int32_t result;                                      // the thesis's
  double tf_static, tf_dynamic;                             // the thesis's seconds, TensorFlow r1.4
  const char* speeding;                                     // the thesis's column, as printed
};

// Tables 1-4, as printed in the thesis (decimal commas made points in the
// seconds; the "Speeding" column as printed: fib(27)'s dynamic time repeats
// fib(26)'s there, a typo the column does not share).
const std::vector<std::vector<Row>> kTables = {
    {
        {"thesis-fib", "fib(24)", {{"n", 24}}, 75025, 0.812377, 0.990659, "18,00%"},
        {"thesis-fib", "fib(25)", {{"n", 25}}, 121393, 1.258550, 1.619930, "22,31%"},
        {"thesis-fib", "fib(26)", {{"n", 26}}, 196418, 2.126620, 2.571740, "17,31%"},
        {"thesis-fib", "fib(27)", {{"n", 27}}, 317811, 3.294910, 2.571740, "21,15%"},
        {"thesis-fib", "fib(28)", {{"n", 28}}, 514229, 5.337590, 6.738720, "20,79%"},
        {"thesis-fib", "fib(29)", {{"n", 29}}, 832040, 8.613920, 10.93650, "21,24%"},
        {"thesis-fib", "fib(30)", {{"n", 30}}, 1346269, 13.96830, 17.80130, "21,53%"},
        {"thesis-fib", "fib(31)", {{"n", 31}}, 2178309, 22.71710, 28.61000, "20,60%"},
        {"thesis-fib", "fib(32)", {{"n", 32}}, 3524578, 37.44630, 46.85490, "20,08%"},
        {"thesis-fib", "fib(33)", {{"n", 33}}, 5702887, 61.28730, 75.64640, "18,98%"},
    },
    {
        {"thesis-ackermann", "Ack(3,3)", {{"m", 3}, {"n", 3}}, 61, 0.088524, 0.117663, "24,76%"},
        {"thesis-ackermann", "Ack(3,4)", {{"m", 3}, {"n", 4}}, 125, 0.348156, 0.502658, "30,74%"},
        {"thesis-ackermann", "Ack(3,5)", {{"m", 3}, {"n", 5}}, 253, 1.510960, 2.094950, "27,88%"},
        {"thesis-ackermann", "Ack(3,6)", {{"m", 3}, {"n", 6}}, 509, 6.165240, 8.322080, "25,92%"},
        {"thesis-ackermann", "Ack(3,7)", {{"m", 3}, {"n", 7}}, 1021, 25.48890, 33.14740, "23,10%"},
        {"thesis-ackermann", "Ack(3,8)", {{"m", 3}, {"n", 8}}, 2045, 100.8820, 128.9550, "21,77%"},
    },
    {
        {"thesis-takeuchi", "Tak(24,16,8)", {{"x", 24}, {"y", 16}, {"z", 8}}, 9, 18.881400, 16.07500, "-17,46%"},
        {"thesis-takeuchi", "Tak(25,16,8)", {{"x", 25}, {"y", 16}, {"z", 8}}, 16, 29.549000, 25.39410, "-16,36%"},
        {"thesis-takeuchi", "Tak(26,16,8)", {{"x", 26}, {"y", 16}, {"z", 8}}, 9, 45.218000, 38.72190, "-16,78%"},
        {"thesis-takeuchi", "Tak(27,16,8)", {{"x", 27}, {"y", 16}, {"z", 8}}, 16, 67.757100, 57.87620, "-17,07%"},
        {"thesis-takeuchi", "Tak(27,17,8)", {{"x", 27}, {"y", 17}, {"z", 8}}, 9, 188.50600, 159.7780, "-17,98%"},
    },
    {
        {"thesis-primes", "Primes(7500)", {{"x", 7500}}, 42209, 13.50220, 13.45770, "-0,33%"},
        {"thesis-primes", "Primes(8000)", {{"x", 8000}}, 45161, 14.83550, 14.78420, "-0,35%"},
        {"thesis-primes", "Primes(8500)", {{"x", 8500}}, 48137, 16.26770, 16.07610, "-1,19%"},
        {"thesis-primes", "Primes(9000)", {{"x", 9000}}, 51077, 17.55610, 17.34800, "-1,20%"},
        {"thesis-primes", "Primes(9500)", {{"x", 9500}}, 54047, 18.86810, 18.91230, "0,23%"},
        {"thesis-primes", "Primes(10000)", {{"x", 10000}}, 57077, 20.63630, 20.37830, "-1,27%"},
    },
};

std::shared_ptr<const Program> load(const std::string& dir, const std::string& model,
                                    const std::vector<std::pair<const char*, std::int32_t>>& feeds) {
  auto spec = format::load_program_file(dir + "/models/" + model + ".json");
  for (auto& e : spec.edges)
    for (const auto& [edge, v] : feeds)
      if (e.id == edge) e.value = Tensor::scalar(v);
  return Program::build(std::move(spec));
}

struct Timed {
  double seconds = 1e300;  // the best run's
  Content result;          // the first fetched output
  std::uint64_t handed = 0;  // the best run's tasks handed between threads
};

// The best of `reps` runs of each way to run (static then dynamic calls, each
// on 1 and 2 threads), each run on a fresh executor; the ways take turns, so
// that a host whose speed drifts favours none of them.
std::array<Timed, 4> timed(const std::shared_ptr<const Program>& p, int reps) {
  std::array<Timed, 4> best;
  for (int k = 0; k < reps; ++k) {
    std::size_t way = 0;
    for (auto calls : {fast_exec::Calls::static_, fast_exec::Calls::dynamic})
      for (int threads : {1, 2}) {
        fast_exec::ExecOptions o;
        o.threads = threads;
        o.calls = calls;
        fast_exec::Executor s(p, o);
        const auto start = std::chrono::steady_clock::now();
        auto r = s.run();
        const std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
        auto& b = best[way++];
        if (took.count() < b.seconds) b = {took.count(), r.fetched.at(0), r.handed};
      }
  }
  return best;
}

// Nanoseconds per run of a session, over `runs` runs after a warm-up.
double ns_per_run(const std::shared_ptr<const Program>& p, int runs) {
  fast_exec::Executor s(p);
  s.run();
  const auto start = std::chrono::steady_clock::now();
  for (int k = 0; k < runs; ++k) s.run();
  const std::chrono::duration<double, std::nano> took = std::chrono::steady_clock::now() - start;
  return took.count() / runs;
}

void loop_overhead(const std::string& dir) {
  constexpr std::int32_t kIterations = 100000;
  const auto loop = load(dir, "while-sum", {{"t_3", kIterations + 1}});
  const auto nodes = loop->frame(FrameId(std::uint32_t{1})).nodes.size();  // fired in each iteration
  const auto per_iteration = ns_per_run(loop, 3) / kIterations;
  constexpr std::size_t kChain = 10000;
  const auto chain = Program::build(bench::trivial_graph(bench::chain(kChain)));
  const auto per_node = ns_per_run(chain, 20) / kChain;
  std::printf("\n| loop overhead (1 thread) | ns per iteration | nodes per iteration | ns per node |\n|---|---|---|---|\n");
  std::printf("| while loop, trivial body (while-sum, %d iterations) | %.0f | %zu | %.0f |\n", kIterations, per_iteration,
              nodes, per_iteration / static_cast<double>(nodes));
  std::printf("| chain of %zu trivial nodes, no control flow | | | %.0f |\n", kChain, per_node);
}

// Every row (the first of each table when quick, those labelled `rows` when
// given), then the loop's overhead; returns how many results differ from the thesis's.
int tables(bool quick, const std::vector<std::string>& rows, int reps, const std::string& dir) {
  std::printf("| program | result | thesis result | static 1T s | static 2T s | dynamic 1T s | dynamic 2T s | static 2T "
              "speed-up | dynamic 2T speed-up | tasks handed (static, dynamic) | TF r1.4 static s (other hardware) | TF r1.4 "
              "dynamic s (other hardware) | static vs TF static | speeding 1T | thesis speeding |\n"
              "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
  int wrong = 0;
  for (const auto& table : kTables) {
    for (const auto& row : table) {
      if (!rows.empty() && std::find(rows.begin(), rows.end(), row.label) == rows.end()) continue;
      const auto p = load(dir, row.model, row.feeds);
      double secs[4] = {};
      std::uint64_t handed[4] = {};
      std::string result;
      const auto runs = timed(p, reps);
      for (std::size_t k = 0; k < runs.size(); ++k) {
        secs[k] = runs[k].seconds;
        handed[k] = runs[k].handed;
        const auto text = content_to_string(*p, runs[k].result);
        if (text != "i32:" + std::to_string(row.result)) ++wrong;
        if (result.empty() || text != result) result = result.empty() ? text : result + " / " + text;
      }
      const auto speeding = (secs[2] - secs[0]) / secs[2] * 100;
      std::printf("| %s | %s | %d | %.3f | %.3f | %.3f | %.3f | %.2fx | %.2fx | %llu, %llu | %.3f | %.3f | %.0fx | %.1f%% | %s |\n",
                  row.label, result.c_str(), row.result, secs[0], secs[1], secs[2], secs[3], secs[0] / secs[1],
                  secs[2] / secs[3], static_cast<unsigned long long>(handed[1]), static_cast<unsigned long long>(handed[3]),
                  row.tf_static, row.tf_dynamic, row.tf_static / secs[0], speeding, row.speeding);
      std::fflush(stdout);
      if (quick) break;
    }
  }
  loop_overhead(dir);
  return wrong;
}

}  // namespace

int main(int argc, char** argv) {
  bool quick = false;
  int reps = 1;
  std::vector<std::string> rows;
  std::string dir = TFSEM_SOURCE_DIR;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--quick") == 0) quick = true;
    else if (std::strcmp(argv[i], "--row") == 0 && i + 1 < argc) rows.emplace_back(argv[++i]);
    else if (std::strcmp(argv[i], "--reps") == 0 && i + 1 < argc && std::atoi(argv[i + 1]) > 0) reps = std::atoi(argv[++i]);
    else if (argv[i][0] != '-') dir = argv[i];
    else {
      std::fprintf(stderr,
                   "usage: thesis_tables [--quick] [--row LABEL]... [--reps N] [SOURCE_DIR]   (--quick: the first row of each "
                   "table; --row: only that row, e.g. 'fib(30)'; --reps: each time the best of N runs)\n");
      return std::strcmp(argv[i], "--help") == 0 ? 0 : 2;
    }
  }
  try {
    const int wrong = tables(quick, rows, reps, dir);
    if (wrong > 0) std::printf("\nWRONG: %d results differ from the thesis's\n", wrong);
    return wrong == 0 ? 0 : 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "thesis_tables: %s\n", e.what());
    return 2;
  }
}
