// The fast executor under test: a compiled graph run many times in a session
// whose variables persist across runs (paper section 2), on a thread pool
// (Eigen's non-blocking ThreadPool, the one TensorFlow uses). Ready nodes are
// found by atomic pending counters; the finishing thread continues with one
// ready successor and queues the rest. Assign-f is atomic per variable (a lock
// per variable); Read copies an immutable tensor handle under that lock, so it
// never sees a torn value. It shares nothing with the explorer: conformance
// (cli/conform.cpp) compares the two.
#pragma once

#include "fast_exec/compiled.hpp"
#include "semantics/session.hpp"

#include <boost/container/small_vector.hpp>

#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace tfsem::fast_exec {

struct ExecOptions {
  int threads = 1;
  // Seeded schedule perturbation: random order among ready nodes and short
  // random delays before stateful nodes, so runs visit different interleavings.
  std::optional<std::uint64_t> perturb_seed;
  // Assign-f as a separate read, compute and write, without holding the lock
  // across them (TensorFlow's use_locking=False): a deliberate bug that
  // conformance must catch.
  bool unsafe_assign = false;
  TermOptions terms{};
};

struct RunResult {
  std::vector<Content> fetched;  // each fetched output edge's contents (CompiledGraph::fetched)
  std::vector<Tensor> var_value;                         // VarValue after the run
  // The order in which Read and Assign-f nodes touched each variable.
  std::vector<std::vector<NodeId>> accesses;
  // The result each node picked, for a relation f (Choice); 0 otherwise.
  std::vector<std::uint32_t> choices;
};

class Session {
 public:
  Session(std::shared_ptr<const Program> program, ExecOptions options = {});
  ~Session();
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  // One run: InTransit starts from the graph's inputs, VarValue from the last run.
  RunResult run();
  // One run in exactly this order, on the calling thread (a witness from tfsem
  // check); throws InputError when a step is not ready.
  RunResult run_schedule(const Schedule& schedule);

  // A run's outputs by fetch name.
  [[nodiscard]] std::vector<std::pair<std::string, Content>> outputs(const RunResult& r) const;
  // VarValue back to the variables' initial values (a fresh session).
  void reset();

  [[nodiscard]] const CompiledGraph& graph() const { return graph_; }

 private:
  struct Run;
  struct Pool;  // Eigen's ThreadPool, kept out of this header
  struct Variable {
    explicit Variable(Tensor v) : value(std::move(v)) {}
    std::mutex lock;
    Tensor value;
    std::vector<NodeId> accesses;
  };
  CompiledGraph graph_;
  ExecOptions options_;
  std::vector<std::unique_ptr<Variable>> vars_;
  std::unique_ptr<Pool> pool_;
  std::uint64_t runs_ = 0;

  using Ready = boost::container::small_vector<std::uint32_t, 16>;
  void fire(Run& run, std::uint32_t n, RandomScheduler& rng, Ready& ready);
  void work(Run& run, std::uint32_t n, std::uint64_t seed);
  void schedule(Run& run, std::uint32_t n, std::uint64_t seed);
  std::unique_ptr<Run> run_;  // reused by every run: a session runs one run at a time
  Run& start_run();
  RunResult finish(Run& run);
};

}  // namespace tfsem::fast_exec
