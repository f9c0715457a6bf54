#include "fast_exec/session.hpp"

#include "semantics/diagnostic.hpp"
#include "semantics/hash.hpp"

#define EIGEN_USE_THREADS
#include <unsupported/Eigen/CXX11/ThreadPool>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <thread>

namespace tfsem::fast_exec {

struct Session::Pool {
  explicit Pool(int threads) : pool(threads) {}
  Eigen::ThreadPool pool;
};

// The state of one run: InTransit, the pending counters, completion.
struct Session::Run {
  // InTransit: the host contents of each edge and, with an accelerator, its
  // device tensor (apart, so that a host-only run touches only the first).
  std::vector<Content> in_transit;
  std::vector<std::shared_ptr<const DeviceTensor>> on_device;
  Slot take(std::uint32_t e) {
    return {std::exchange(in_transit[e], Empty{}), on_device.empty() ? nullptr : std::exchange(on_device[e], nullptr)};
  }
  void put(std::uint32_t e, Slot v) {
    in_transit[e] = std::move(v.host);
    if (v.device) on_device[e] = std::move(v.device);
  }
  std::unique_ptr<std::atomic<std::int32_t>[]> pending;
  std::vector<std::uint32_t> choices;
  std::vector<std::uint32_t> forced;  // run_schedule: the result each relation must pick
  std::atomic<std::size_t> remaining;
  std::atomic<std::uint64_t> uploads{0}, downloads{0};
  std::mutex done_lock;
  std::condition_variable done;
  std::uint64_t seed = 0;
  bool perturb = false;
  Session* session = nullptr;
};

Session::Session(std::shared_ptr<const Program> program, ExecOptions options)
    : graph_(std::move(program), options.terms), options_(options) {
  place();
  for (const auto& v : graph_.program->variables()) set_variable(*vars_.emplace_back(std::make_unique<Variable>()), v.initial);
  if (options_.threads > 1) pool_ = std::make_unique<Pool>(options_.threads);
}

std::size_t Placement::accelerated() const {
  return static_cast<std::size_t>(std::count(on_accelerator.begin(), on_accelerator.end(), true));
}

// A variable lives on the accelerator when its value can; its Read and
// Assign-f nodes run where it lives. A function runs on the accelerator when
// it has a kernel there; a constant, when everything it feeds does. A
// forwarding function (Identity, Copy, Snd) moves nothing: its results stay
// where its argument is. Var(x) and relations (Choice) run on the host.
void Session::place() {
  const auto& p = *graph_.program;
  auto& pl = placement_;
  pl.on_accelerator.assign(graph_.nodes.size(), false);
  pl.resident.assign(p.variables().size(), false);
  const auto& acc = options_.accelerator;
  if (!acc) return;
  for (std::size_t x = 0; x < p.variables().size(); ++x) pl.resident[x] = acc->holds(p.variables()[x].initial);
  for (std::size_t n = 0; n < graph_.nodes.size(); ++n) {
    const auto& c = graph_.nodes[n];
    if (c.stateful) pl.on_accelerator[n] = pl.resident[c.var.index()];
    else if (c.kind == Op::Kind::function && c.constant == 0)
      pl.on_accelerator[n] = !c.fn->forwards && !c.fn->nondeterministic && acc->implements(*c.fn, *c.attrs);
  }
  device_constants_.resize(graph_.constants.size());
  for (std::size_t n = 0; n < graph_.nodes.size(); ++n) {
    const auto& c = graph_.nodes[n];
    if (c.constant == 0 || c.succ_count == 0) continue;
    bool all = true;
    for (std::uint32_t j = 0; j < c.succ_count; ++j) all = all && pl.on_accelerator[graph_.succ[c.succ_begin + j]];
    const auto& tuple = graph_.constants[c.constant - 1];
    for (const auto& t : tuple) all = all && acc->holds(t);
    if (!all) continue;
    pl.on_accelerator[n] = true;
    if (!device_constants_[c.constant - 1])
      device_constants_[c.constant - 1] = std::make_shared<const DeviceTensor>(acc->upload(tuple[0]));
  }
}

void Session::set_variable(Variable& x, Tensor initial) {
  const auto& acc = options_.accelerator;
  if (acc && acc->holds(initial)) x.value = Slot{Empty{}, std::make_shared<const DeviceTensor>(acc->upload(initial))};
  else x.value = Slot{std::move(initial), {}};
}

Tensor Session::on_host(Run& run, Slot v) const {
  if (!v.device) return std::get<Tensor>(std::move(v.host));
  run.downloads.fetch_add(1, std::memory_order_relaxed);
  return options_.accelerator->download(*v.device);
}

Slot Session::to_accelerator(Run& run, Slot v) const {
  if (v.device) return v;
  const auto* t = std::get_if<Tensor>(&v.host);
  if (t == nullptr || !options_.accelerator->holds(*t)) return v;  // stays on the host
  run.uploads.fetch_add(1, std::memory_order_relaxed);
  return Slot{Empty{}, std::make_shared<const DeviceTensor>(options_.accelerator->upload(*t))};
}

std::uint32_t Session::pick(const Run& run, std::uint32_t n, std::size_t alternatives, RandomScheduler& rng) {
  if (!run.forced.empty()) return std::min(run.forced[n], static_cast<std::uint32_t>(alternatives - 1));
  if (alternatives == 1) return 0;
  return static_cast<std::uint32_t>(rng.below(alternatives));
}

Session::Slots Session::compute(Run& run, std::uint32_t n, std::span<Slot> args, RandomScheduler& rng) const {
  const auto& c = graph_.nodes[n];
  const auto& f = *c.fn;
  Slots out;
  if (f.forwards) {  // the one argument f inspects, on every output, wherever it is
    const auto inspected = (f.ignored_args & 1U) != 0 ? 1U : 0U;
    out.assign(f.outputs, args[inspected]);
    return out;
  }
  if (placement_.on_accelerator[n]) {
    std::vector<DeviceTensor> dev;
    for (const auto& a : args) {
      auto v = to_accelerator(run, a);
      if (!v.device) break;
      dev.push_back(*v.device);
    }
    if (dev.size() == args.size())
      if (auto results = options_.accelerator->run(f, *c.attrs, dev)) {
        for (auto& r : *results) out.push_back(Slot{Empty{}, std::make_shared<const DeviceTensor>(std::move(r))});
        return out;
      }
  }
  boost::container::small_vector<Tensor, 4> host;
  for (auto& a : args) host.push_back(on_host(run, std::move(a)));
  auto tuples = apply(f, std::span<const Tensor>(host.data(), host.size()), *c.attrs, options_.terms);
  const auto k = pick(run, n, tuples.size(), rng);
  run.choices[n] = k;
  for (auto& t : tuples[k]) out.push_back(Slot{std::move(t), {}});
  return out;
}

Session::~Session() = default;

void Session::reset() {
  for (std::size_t x = 0; x < vars_.size(); ++x) set_variable(*vars_[x], graph_.program->variables()[x].initial);
}

void Session::fire(Run& run, std::uint32_t n, RandomScheduler& rng, Ready& ready) {
  const auto& c = graph_.nodes[n];
  auto take = [&](std::uint32_t port) { return run.take(graph_.in_edges[c.in_begin + port]); };
  auto put = [&](std::uint32_t port, Slot v) { run.put(graph_.out_edges[c.out_begin + port], std::move(v)); };
  if (run.perturb && c.stateful && rng.below(2) == 0) std::this_thread::sleep_for(std::chrono::microseconds(rng.below(50)));
  switch (c.kind) {
    case Op::Kind::function: {
      if (c.constant != 0) {
        const auto& tuple = graph_.constants[c.constant - 1];
        if (placement_.on_accelerator[n]) put(0, Slot{Empty{}, device_constants_[c.constant - 1]});
        else
          for (std::uint32_t j = 0; j < c.out_count; ++j) put(j, Slot{tuple[j], {}});
        break;
      }
      boost::container::small_vector<Slot, 4> args;
      for (std::uint32_t i = 0; i < c.in_count; ++i) args.push_back(take(i));
      auto results = compute(run, n, std::span<Slot>(args.data(), args.size()), rng);
      for (std::uint32_t j = 0; j < c.out_count; ++j) put(j, std::move(results[j]));
      break;
    }
    case Op::Kind::var:
      put(0, Slot{c.var, {}});
      break;
    case Op::Kind::read: {
      take(0);
      auto& x = *vars_[c.var.index()];
      Slot v = [&] {
        std::lock_guard guard(x.lock);
        x.accesses.emplace_back(n);
        return x.value;
      }();
      put(0, std::move(v));
      break;
    }
    case Op::Kind::assign: {
      take(0);
      const Slot v = take(1);
      const bool error = !v.device && std::get<Tensor>(v.host).is_error();
      auto& x = *vars_[c.var.index()];
      auto update = [&](const Slot& w) {  // f(w, v), kept where the variable lives
        Slot args[] = {w, v};
        auto next = std::move(compute(run, n, args, rng)[0]);
        return placement_.resident[c.var.index()] ? to_accelerator(run, std::move(next)) : next;
      };
      if (options_.unsafe_assign) {  // read, compute, write: updates can be lost
        const Slot w = [&] {
          std::lock_guard guard(x.lock);
          return x.value;
        }();
        auto next = error ? w : update(w);
        if (run.perturb) std::this_thread::sleep_for(std::chrono::microseconds(rng.below(50)));
        std::lock_guard guard(x.lock);
        x.value = std::move(next);
        x.accesses.emplace_back(n);
      } else {
        std::lock_guard guard(x.lock);
        if (!error) x.value = update(x.value);  // S-ERR-ASSIGN: no side effect on an error input
        x.accesses.emplace_back(n);
      }
      break;
    }
    default: break;  // CompiledGraph refuses control flow
  }
  for (std::uint32_t j = 0; j < c.control_out_count; ++j) run.in_transit[graph_.control_out_edges[c.control_out_begin + j]] = Go{};
  // The pending counter is decremented after the slot is written (release),
  // and the thread that brings it to zero sees every input (acquire).
  for (std::uint32_t j = 0; j < c.succ_count; ++j) {
    const auto s = graph_.succ[c.succ_begin + j];
    if (run.pending[s].fetch_sub(1, std::memory_order_acq_rel) == 1) ready.push_back(s);
  }
  if (run.perturb) rng.shuffle(ready);
}

// Queues work(run, n) on the pool. The task's capture fits std::function's
// small buffer (16 bytes), so queueing allocates nothing.
void Session::schedule(Run& run, std::uint32_t n, std::uint64_t seed) {
  Run* r = &run;
  const auto low = static_cast<std::uint32_t>(seed);
  pool_->pool.Schedule([r, n, low] { r->session->work(*r, n, low); });
}

// Fires n, then keeps going on this thread with one ready successor; the
// others go to the pool (or, with one thread, to a local stack).
void Session::work(Run& run, std::uint32_t n, std::uint64_t seed) {
  RandomScheduler rng(seed);
  // On the stack: Eigen's pool runs a task inline when its queue is full, so
  // work can nest.
  Ready local{n}, ready;
  std::size_t fired = 0;
  while (!local.empty()) {
    const auto m = local.back();
    local.pop_back();
    ready.clear();
    fire(run, m, rng, ready);
    ++fired;
    for (std::size_t i = 0; i < ready.size(); ++i) {
      if (pool_ && i + 1 < ready.size()) {
        schedule(run, ready[i], rng.next());
      } else {
        local.push_back(ready[i]);
      }
    }
  }
  if (run.remaining.fetch_sub(fired, std::memory_order_acq_rel) == fired) {
    std::lock_guard guard(run.done_lock);
    run.done.notify_all();
  }
}

RunResult Session::finish(Run& run) {
  RunResult r;
  for (auto& x : vars_) {
    if (options_.var_values) r.var_value.push_back(on_host(run, x->value));
    r.accesses.push_back(std::exchange(x->accesses, {}));
  }
  r.fetched.reserve(graph_.fetched.size());
  for (auto e : graph_.fetched) {
    auto v = run.take(e);
    r.fetched.push_back(v.device ? Content{on_host(run, v)} : std::move(v.host));
  }
  r.uploads = run.uploads.exchange(0);
  r.downloads = run.downloads.exchange(0);
  r.choices = run.choices;
  return r;
}

std::vector<std::pair<std::string, Content>> Session::outputs(const RunResult& r) const {
  std::vector<std::pair<std::string, Content>> out;
  for (std::size_t i = 0; i < graph_.fetched.size(); ++i)
    out.emplace_back(graph_.program->edge(EdgeId(graph_.fetched[i])).fetch, r.fetched[i]);
  return out;
}

Session::Run& Session::start_run() {
  const auto& p = *graph_.program;
  const auto n = graph_.nodes.size();
  if (!run_) {
    run_ = std::make_unique<Run>();
    run_->session = this;
    run_->in_transit.resize(p.edges().size());
    if (options_.accelerator) run_->on_device.resize(p.edges().size());
    run_->pending = std::make_unique<std::atomic<std::int32_t>[]>(n);
  }
  auto& run = *run_;
  for (std::size_t e = 0; e < p.edges().size(); ++e) {
    const auto& edge = p.edge(EdgeId(e));
    run.in_transit[e] = edge.is_input() ? edge.initial : Content{Empty{}};
    if (!run.on_device.empty()) run.on_device[e] = nullptr;
  }
  for (std::size_t i = 0; i < n; ++i) run.pending[i].store(graph_.nodes[i].pending, std::memory_order_relaxed);
  run.choices.assign(n, 0);
  run.forced.clear();
  run.perturb = options_.perturb_seed.has_value();
  run.seed = hash_combine(options_.perturb_seed.value_or(0x7f4a7c15), runs_++);
  // In a section-3 graph every node fires exactly once (S-INIT-1: inputs are fed).
  run.remaining.store(n);
  return run;
}

RunResult Session::run() {
  auto& run = start_run();
  RandomScheduler rng(run.seed);
  auto ready = graph_.initially_ready;
  if (run.perturb) rng.shuffle(ready);
  if (!pool_) {
    for (auto n : ready) work(run, n, rng.next());
  } else if (!ready.empty()) {
    for (auto n : ready) schedule(run, n, rng.next());
    std::unique_lock guard(run.done_lock);
    run.done.wait(guard, [&] { return run.remaining.load(std::memory_order_acquire) == 0; });
  }
  return finish(run);
}

RunResult Session::run_schedule(const Schedule& schedule) {
  auto& run = start_run();
  run.perturb = false;
  run.forced.assign(graph_.nodes.size(), 0);
  for (const auto& step : schedule) run.forced[step.node.value] = step.choice;
  std::vector<bool> fired(graph_.nodes.size(), false);
  Ready ready;
  RandomScheduler rng(run.seed);
  for (std::size_t i = 0; i < schedule.size(); ++i) {
    const auto n = schedule[i].node.value;
    if (fired[n] || run.pending[n].load() != 0)
      throw InputError("T-SCHEDULE", "schedule", "step " + std::to_string(i + 1),
                       "node '" + graph_.program->node(schedule[i].node).name + "' is not ready in the executor");
    fire(run, n, rng, ready);
    fired[n] = true;
  }
  return finish(run);
}

}  // namespace tfsem::fast_exec
