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
#include "fast_exec/device.hpp"
#include "semantics/session.hpp"

#include <boost/container/small_vector.hpp>

#include <cstdint>
#include <span>
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
  // Where kernels run besides the host (--device gpu); null: the host only.
  std::shared_ptr<Device> accelerator;
  // Copy VarValue back to the host after each run (RunResult::var_value); a
  // benchmark that never looks at it leaves device-resident variables alone.
  bool var_values = true;
};

// What an edge or a variable holds in the executor: contents on the host, or
// a tensor resident on the accelerator (small, so the host-only path stays fast).
struct Slot {
  Content host = Empty{};
  std::shared_ptr<const DeviceTensor> device;
};

struct RunResult {
  std::vector<Content> fetched;  // each fetched output edge's contents (CompiledGraph::fetched)
  std::vector<Tensor> var_value;                         // VarValue after the run
  // The order in which Read and Assign-f nodes touched each variable.
  std::vector<std::vector<NodeId>> accesses;
  // The result each node picked, for a relation f (Choice); 0 otherwise.
  std::vector<std::uint32_t> choices;
  // The copies made where an edge crossed devices, fetches and VarValue included.
  std::uint64_t uploads = 0, downloads = 0;
};

// Which device each node runs on: the host, or the accelerator.
struct Placement {
  std::vector<bool> on_accelerator;  // by node
  std::vector<bool> resident;        // by variable: VarValue lives on the accelerator
  [[nodiscard]] std::size_t accelerated() const;
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
  [[nodiscard]] const Placement& placement() const { return placement_; }

 private:
  struct Run;
  struct Pool;  // Eigen's ThreadPool, kept out of this header
  struct Variable {
    std::mutex lock;
    Slot value;
    std::vector<NodeId> accesses;
  };
  CompiledGraph graph_;
  ExecOptions options_;
  Placement placement_;
  std::vector<std::shared_ptr<const DeviceTensor>> device_constants_;  // uploaded once, for constants placed on the accelerator
  std::vector<std::unique_ptr<Variable>> vars_;
  // Declared before pool_, so destroyed after it: the pool joins its threads
  // first, and the thread that finished a run may still be signalling
  // run_->done when run() has already returned.
  std::unique_ptr<Run> run_;  // reused by every run: a session runs one run at a time
  std::unique_ptr<Pool> pool_;
  std::uint64_t runs_ = 0;

  using Ready = boost::container::small_vector<std::uint32_t, 16>;
  void place();
  void fire(Run& run, std::uint32_t n, RandomScheduler& rng, Ready& ready);
  // The copies between devices, counted in the run.
  Tensor on_host(Run& run, Slot v) const;
  Slot to_accelerator(Run& run, Slot v) const;
  using Slots = boost::container::small_vector<Slot, 2>;
  // f on the node's device; on the host when the accelerator declines. Moves
  // from args. Records the result picked (run.choices) when f is a relation.
  Slots compute(Run& run, std::uint32_t n, std::span<Slot> args, RandomScheduler& rng) const;
  // Which of `alternatives` results node n takes: forced by run_schedule, or random.
  static std::uint32_t pick(const Run& run, std::uint32_t n, std::size_t alternatives, RandomScheduler& rng);
  void set_variable(Variable& x, Tensor initial);
  void work(Run& run, std::uint32_t n, std::uint64_t seed);
  void schedule(Run& run, std::uint32_t n, std::uint64_t seed);
  Run& start_run();
  RunResult finish(Run& run);
};

}  // namespace tfsem::fast_exec
