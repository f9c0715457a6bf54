// The fast executor under test: a compiled graph run many times in a session
// whose variables persist across runs (paper section 2), on worker threads
// that steal work from each other (fast_exec/workers.hpp). As in
// TensorFlow's executor (Yu et al., EuroSys 2018), the executor fires each
// ready node (its kernel on its device, its variable accessed) and a
// propagator (fast_exec/propagator.hpp) routes what it sends: a frame
// instance per loop entered and per call made, with a state per iteration
// (pending counts per node, input slots), dead tokens, and at most
// parallel_iterations iterations of an instance in flight. Ready nodes are
// found by pending counters, under their frame instance's lock while more
// than one worker is busy; the finishing worker continues with one ready
// successor and puts the rest on its own stack, whose oldest task an idle
// worker takes. Assign-f is atomic per variable (a lock per variable); Read
// copies an immutable tensor handle under that lock, so it never sees a torn
// value. It shares nothing with the explorer: conformance
// (conformance/conform.cpp) compares the two.
#pragma once

#include "fast_exec/compiled.hpp"
#include "fast_exec/device.hpp"
#include "fast_exec/inline_vector.hpp"
#include "fast_exec/token.hpp"
#include "semantics/session.hpp"

#include <boost/container/small_vector.hpp>

#include <chrono>
#include <cstdint>
#include <span>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace tfsem::fast_exec {

struct Task;   // a node to fire in an iteration (fast_exec/propagator.hpp)
struct Ready;  // the tasks a firing makes ready (fast_exec/propagator.hpp)
// A worker's tasks waiting to fire, the oldest at the bottom.
using Stack = InlineVector<Task, 16>;
class Propagator;
class Workers;

// How a call runs (thesis section 6): static, the function's frame instances
// reused from pools, their tag the call sites; dynamic, each call's state
// instantiated from the function's body when it is made, as TensorFlow r1.4 does.
enum class Calls : std::uint8_t { static_, dynamic };

struct ExecOptions {
  int threads = 1;
  Calls calls = Calls::static_;
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
  // Record each live Merge's input port (RunResult::choices), for conformance.
  bool record_merges = false;
  // Record each variable's accesses in order (RunResult::accesses), for
  // conformance; off, a Read or Assign-f logs nothing and computes no context.
  bool record_accesses = false;
  // X-HALT: a run halts before a loop instance would start iteration
  // max_iterations, or a call would be max_depth + 1 calls deep; 0: no bound.
  std::uint32_t max_iterations = 0, max_depth = 0;
};

// An execution context as the executor knows it: the (frame, iteration) of
// each enclosing loop and the (function frame, call site) of each enclosing
// call, outermost first; empty for the root context.
using ExecContext = boost::container::small_vector<std::pair<FrameId, std::uint32_t>, 4>;

// A node fired in a context; for a relation (Choice), the result it picked;
// for a Merge, the input port it forwarded.
struct Fired {
  NodeId node;
  ExecContext context;
  std::uint32_t choice = 0;
};

// X-HALT: why a run stopped with work left: where the executor cannot follow
// the semantics (a Switch on a term: it runs one path), where a loop or a
// recursion would not end (its predicate an error, which goes down both
// branches), or at the run's bounds.
struct Halt {
  enum class Why : std::uint8_t {
    term_predicate,  // the Switch `node` got the term `value` (C-SWITCH-SYMBOLIC)
    endless_loop,    // the Exit `node` got `value` again, in an iteration whose predicate was an error
    endless_recursion,  // the Call `node` is made because a predicate was an error, in a call of its function made so too
    iteration_limit,  // the NextIteration `node` would start iteration `value` (ExecOptions::max_iterations)
    depth_limit,      // the Call `node` would make a call `value` calls deep (ExecOptions::max_depth)
  };
  Why why = Why::term_predicate;
  NodeId node;
  std::vector<std::pair<FrameId, std::uint32_t>> context;  // the iteration or call where it fired (ExecContext)
  std::string value;    // the predicate, what the Exit got, the iteration or the depth, as text ("" for a recursion)
};

// The halt as a sentence: the node, its context, what it got, and for a term
// predicate the unknown inputs it depends on (unknown_inputs).
std::string halt_text(const Semantics& sem, const Halt& h);

struct RunResult {
  std::vector<Content> fetched;  // each fetched output edge's contents (CompiledGraph::fetched)
  std::vector<Tensor> var_value;                         // VarValue after the run
  // The order in which Read and Assign-f nodes touched each variable
  // (ExecOptions::record_accesses; else each empty).
  std::vector<std::vector<Fired>> accesses;
  // The relations that had a choice, and (ExecOptions::record_merges) every
  // live Merge, with what they picked.
  std::vector<Fired> choices;
  // The copies made where an edge crossed devices, fetches and VarValue included.
  std::uint64_t uploads = 0, downloads = 0;
  // The tasks one worker handed to another (work stealing: 0 on one thread).
  std::uint64_t handed = 0;
  // S-STUCK: the run ended with a node that did not fire in an iteration or a
  // call that was started (a call missing an argument, say): nothing was left to fire.
  bool stuck = false;
  // X-HALT: the run stopped where it says; the outputs it did not fetch are EMPTY.
  std::optional<Halt> halt;
};

// Which device each node runs on: the host, or the accelerator.
struct Placement {
  std::vector<bool> on_accelerator;  // by node
  std::vector<bool> resident;        // by variable: VarValue lives on the accelerator
  [[nodiscard]] std::size_t accelerated() const;
};

class Executor {
 public:
  Executor(std::shared_ptr<const Program> program, ExecOptions options = {});
  ~Executor();
  Executor(const Executor&) = delete;
  Executor& operator=(const Executor&) = delete;

  // One run: InTransit starts from the graph's inputs, VarValue from the last run.
  RunResult run();
  // The same, its results written into r, whose buffers it reuses (as
  // TensorFlow's Session::Run fills the caller's outputs): a caller that runs
  // many times keeps one result. r's old outputs live until the run replaces
  // them; a Const's output that r holds already is left as it is.
  void run(RunResult& r);
  // One run in exactly this order, on the calling thread (a witness from tfsem
  // check); throws InputError when a step is not ready (the steps before it
  // have fired: VarValue is theirs).
  RunResult run_schedule(const Schedule& schedule);

  // A run's outputs by fetch name.
  [[nodiscard]] std::vector<std::pair<std::string, Content>> outputs(const RunResult& r) const;
  // VarValue back to the variables' initial values (a fresh session).
  void reset();
  // The most instances of frame f (a loop or a function) alive at once in this
  // executor's runs so far, with static calls: a call's instance is given back
  // when the call completes, so for a recursive function this follows how deep
  // it recurses, not how many calls it makes.
  [[nodiscard]] std::size_t instances_held(FrameId f) const;

  [[nodiscard]] const CompiledGraph& graph() const { return graph_; }
  [[nodiscard]] const Placement& placement() const { return placement_; }

 private:
  struct Run;  // the state of one run
  struct Variable {
    std::mutex lock;
    Token value;
    std::vector<Fired> accesses;
  };
  CompiledGraph graph_;
  ExecOptions options_;
  Placement placement_;
  // CompiledGraph::constants as tokens, scalars unboxed unless fetched; the
  // propagator sends them too, for a constant it fires at once.
  std::vector<Token> host_constants_;
  [[nodiscard]] std::span<Token> host_constants(const CompiledNode& c) {
    return std::span(host_constants_).subspan(c.constant - 1, c.out_count);
  }
  // Uploaded once, for constants placed on the accelerator: by CompiledNode::constant - 1.
  std::vector<std::shared_ptr<const DeviceTensor>> device_constants_;
  std::vector<std::unique_ptr<Variable>> vars_;
  // Where the tokens each firing sends go: frame instances, iterations, what is ready.
  std::unique_ptr<Propagator> propagator_;
  std::unique_ptr<Run> run_;  // reused by every run: an executor runs one run at a time
  std::unique_ptr<Workers> workers_;  // with more than one thread
  std::uint64_t runs_ = 0;

  using Tokens = InlineVector<Token, 2>;
  void place();
  // Fires t: takes its inputs, applies its rule, and has the propagator route its outputs.
  void fire(Run& run, Task t, RandomScheduler& rng, Ready& ready);
  // The copies between devices, counted in the run.
  Tensor on_host(Run& run, Token v) const;
  Token to_accelerator(Run& run, Token v) const;
  // f on the node's device, its results appended to out; on the host when the
  // accelerator declines. Moves from args. Records the result picked
  // (run.choices) when f is a relation.
  void compute(Run& run, Task t, std::span<Token> args, RandomScheduler& rng, Tokens& out) const;
  // Which of `alternatives` results node n takes: forced by run_schedule, or random.
  static std::uint32_t pick(const Run& run, std::uint32_t n, std::size_t alternatives, RandomScheduler& rng);
  void set_variable(Variable& x, Tensor initial);
  // Read and Assign-f (S-READ, S-ASSIGN) on the variable node n accesses.
  Token read(Task t);
  void assign(Run& run, Task t, Token v, RandomScheduler& rng);

  // Worker w's stack fired until it is empty.
  void work(Run& run, std::uint32_t w, Stack& local, RandomScheduler& rng);
  // When a worker last looked between tasks, its stack holding two or more,
  // while another worker slept (Executor::share).
  using Crowded = std::optional<std::chrono::steady_clock::time_point>;
  // Between firings: the bottom of the stack to a hungry worker, the shared
  // mode entered or left, the sleeping workers roused.
  static void share(Run& run, Stack& local, Crowded& crowded);
  // Worker w's part of a run: its stack (local), then tasks taken from others.
  void serve(Run& run, std::uint32_t w, Stack& local, std::uint64_t seed);
  // forced: run_schedule's run, where every node fired is a step of the schedule.
  Run& start_run(Ready& ready, bool forced, RunResult& r);
  void finish(Run& run, RunResult& r);
};

}  // namespace tfsem::fast_exec
