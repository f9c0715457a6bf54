#include "fast_exec/executor.hpp"

#include "fast_exec/propagator.hpp"
#include "fast_exec/workers.hpp"

#include "semantics/diagnostic.hpp"
#include "semantics/semantics.hpp"
#include "support/hash.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>
#include <optional>
#include <thread>

namespace tfsem::fast_exec {

// The state of one run: propagation's, and the executor's own: how its
// workers share its tasks, the schedule forced or perturbed, the copies made.
struct Executor::Run : Propagation {
  std::vector<std::uint32_t> forced;  // run_schedule: the result each relation must pick
  std::atomic<std::uint64_t> uploads{0}, downloads{0};
  Sharing sharing;  // with more than one worker
  std::uint64_t seed = 0;
  bool perturb = false;
};

Executor::Executor(std::shared_ptr<const Program> program, ExecOptions options)
    : graph_(std::move(program), options.terms), options_(options) {
  place();
  // A constant's tokens are boxed where a node that gives it has an output
  // edge (the result fetches it by reference); Consts may share one.
  std::vector<bool> boxed(graph_.constants.size());
  for (const auto& c : graph_.nodes) {
    if (c.constant == 0) continue;
    const auto outs = std::span(graph_.outs).subspan(c.out_begin, c.out_count);
    if (std::any_of(outs.begin(), outs.end(), [](const CompiledOut& o) { return o.route == Route::output; }))
      std::fill_n(boxed.begin() + (c.constant - 1), c.out_count, true);
  }
  host_constants_.reserve(graph_.constants.size());
  for (std::size_t k = 0; k < graph_.constants.size(); ++k)
    host_constants_.push_back(boxed[k] ? Token::boxed(graph_.constants[k]) : Token(graph_.constants[k]));
  propagator_ = std::make_unique<Propagator>(graph_, options_, placement_.on_accelerator, host_constants_);
  for (const auto& v : graph_.program->variables()) set_variable(*vars_.emplace_back(std::make_unique<Variable>()), v.initial);
  if (options_.threads > 1) workers_ = std::make_unique<Workers>(static_cast<std::uint32_t>(options_.threads));
}

std::size_t Placement::accelerated() const {
  return static_cast<std::size_t>(std::count(on_accelerator.begin(), on_accelerator.end(), true));
}

// A variable lives on the accelerator when its value can; its Read and
// Assign-f nodes run where it lives. A function runs on the accelerator when
// it has a kernel there; a constant, when everything it feeds does. A
// forwarding function (Identity, Copy, Snd) moves nothing: its results stay
// where its argument is. Var(x) and relations (Choice) run on the host.
void Executor::place() {
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
    const auto outs = c.out_count + c.control_out_count;
    // One tensor uploaded, one token sent (Executor::fire): a constant of one output.
    if (c.constant == 0 || c.out_count != 1) continue;
    bool all = true;
    for (std::uint32_t j = 0; j < outs; ++j) {
      const auto dst = graph_.outs[c.out_begin + j].dst;
      all = all && dst != kNone && pl.on_accelerator[dst];
    }
    const auto tuple = graph_.tuple(c);
    for (const auto& t : tuple) all = all && acc->holds(t);
    if (!all) continue;
    pl.on_accelerator[n] = true;
    if (!device_constants_[c.constant - 1])
      device_constants_[c.constant - 1] = std::make_shared<const DeviceTensor>(acc->upload(tuple[0]));
  }
}

void Executor::set_variable(Variable& x, Tensor initial) {
  const auto& acc = options_.accelerator;
  if (acc && acc->holds(initial)) x.value = Token(std::make_shared<const DeviceTensor>(acc->upload(initial)));
  else x.value = Token(std::move(initial));
}

Tensor Executor::on_host(Run& run, Token v) const {
  const auto* d = v.device();
  if (d == nullptr) return std::get<Tensor>(v.take_content());
  run.downloads.fetch_add(1, std::memory_order_relaxed);
  return options_.accelerator->download(**d);
}

Token Executor::to_accelerator(Run& run, Token v) const {
  if (v.device()) return v;
  std::optional<Tensor> boxed;  // an unboxed scalar, made a tensor to upload
  if (const auto* s = v.scalar()) boxed = s->tensor();
  const auto* t = boxed ? &*boxed : v.tensor();
  if (t == nullptr || !options_.accelerator->holds(*t)) return v;  // stays on the host
  run.uploads.fetch_add(1, std::memory_order_relaxed);
  return Token(std::make_shared<const DeviceTensor>(options_.accelerator->upload(*t)));
}

std::uint32_t Executor::pick(const Run& run, std::uint32_t n, std::size_t alternatives, RandomScheduler& rng) {
  if (!run.forced.empty()) return std::min(run.forced[n], static_cast<std::uint32_t>(alternatives - 1));
  if (alternatives == 1) return 0;
  return static_cast<std::uint32_t>(rng.below(alternatives));
}

void Executor::compute(Run& run, Task t, std::span<Token> args, RandomScheduler& rng, Tokens& out) const {
  const auto n = t.node;
  const auto& c = graph_.nodes[n];
  const auto& f = *c.fn;
  if (f.forwards) {  // the one argument f inspects, on every output, wherever it is
    const auto inspected = (f.ignored_args & 1U) != 0 ? 1U : 0U;
    if (f.outputs == 1) out.push_back(std::move(args[inspected]));  // no reference count touched
    else
      for (std::size_t j = 0; j < f.outputs; ++j) out.push_back(args[inspected]);
    return;
  }
  if (placement_.on_accelerator[n]) {
    std::vector<DeviceTensor> dev;
    for (const auto& a : args) {
      auto v = to_accelerator(run, a);
      if (!v.device()) break;
      dev.push_back(**v.device());
    }
    if (dev.size() == args.size())
      if (auto results = options_.accelerator->run(f, *c.attrs, dev)) {
        for (auto& r : *results) out.push_back(Token(std::make_shared<const DeviceTensor>(std::move(r))));
        return;
      }
  }
  if (args.size() == 2 && args[0].scalar() != nullptr && args[1].scalar() != nullptr)  // no Tensor made
    if (auto r = apply_binary(f, *args[0].scalar(), *args[1].scalar())) {
      out.emplace_back(*r);
      return;
    }
  InlineVector<Tensor, 4> host;
  for (auto& a : args) host.push_back(a.tensor() != nullptr ? a.take_tensor() : on_host(run, std::move(a)));
  const std::span<const Tensor> in(host.data(), host.size());
  if (!f.nondeterministic) {  // a function: one result tuple
    for (auto& v : apply_function(f, in, *c.attrs, options_.terms)) out.emplace_back(std::move(v));
    return;
  }
  auto tuples = apply(f, in, *c.attrs, options_.terms);
  const auto k = pick(run, n, tuples.size(), rng);
  if (tuples.size() > 1) {
    const std::lock_guard guard(run.trace_lock);
    run.choices.push_back({NodeId(n), context_of(graph_, t.it), k});
  }
  for (auto& v : tuples[k]) out.emplace_back(std::move(v));
}

Executor::~Executor() = default;

std::size_t Executor::instances_held(FrameId f) const { return propagator_->instances_held(static_cast<std::uint32_t>(f.index())); }

void Executor::reset() {
  for (std::size_t x = 0; x < vars_.size(); ++x) set_variable(*vars_[x], graph_.program->variables()[x].initial);
}

Token Executor::read(Task t) {
  const auto& c = graph_.nodes[t.node];
  auto& x = *vars_[c.var.index()];
  if (!options_.record_accesses) {
    const std::lock_guard guard(x.lock);
    return x.value;
  }
  auto context = context_of(graph_, t.it);
  const std::lock_guard guard(x.lock);
  x.accesses.push_back({NodeId(t.node), std::move(context), 0});
  return x.value;
}

void Executor::assign(Run& run, Task t, Token v, RandomScheduler& rng) {
  const auto n = t.node;
  const auto& c = graph_.nodes[n];
  const bool error = v.tensor() != nullptr && v.tensor()->is_error();
  auto& x = *vars_[c.var.index()];
  const bool log = options_.record_accesses;
  auto context = log ? context_of(graph_, t.it) : ExecContext{};
  auto update = [&](const Token& w) {  // f(w, v), kept where the variable lives
    Token args[] = {w, v};
    Tokens out;
    compute(run, t, args, rng, out);
    auto next = std::move(out[0]);
    return placement_.resident[c.var.index()] ? to_accelerator(run, std::move(next)) : next;
  };
  if (options_.unsafe_assign) {  // read, compute, write: updates can be lost
    const Token w = [&] {
      const std::lock_guard guard(x.lock);
      return x.value;
    }();
    auto next = error ? w : update(w);
    if (run.perturb) std::this_thread::sleep_for(std::chrono::microseconds(rng.below(50)));
    const std::lock_guard guard(x.lock);
    x.value = std::move(next);
    if (log) x.accesses.push_back({NodeId(n), std::move(context), 0});
  } else {
    const std::lock_guard guard(x.lock);
    if (!error) x.value = update(x.value);  // S-ERR-ASSIGN: no side effect on an error input
    if (log) x.accesses.push_back({NodeId(n), std::move(context), 0});
  }
}

void Executor::fire(Run& run, Task t, RandomScheduler& rng, Ready& ready) {
  const auto& c = graph_.nodes[t.node];
  auto& it = *t.it;
  auto take = [&](std::uint32_t port) {  // the slot's token, the slot left EMPTY
    return Token{std::move(it.slots[graph_.in_slots[c.in_begin + port]])};
  };
  if (run.perturb && c.stateful && rng.below(2) == 0) std::this_thread::sleep_for(std::chrono::microseconds(rng.below(50)));
  Tokens data;
  auto out = [&](Token control) { propagator_->route(run, t, std::span<Token>(data.data(), data.size()), control, ready); };
  auto every_output = [&](const Token& v) {
    for (std::uint32_t j = 0; j < c.out_count; ++j) data.push_back(v);
  };
  // A Merge never gets here: it fires at once (Propagator::fire_at_once), and run_schedule,
  // which fires nothing at once, refuses a graph with control flow.
  if ((it.flags[c.local] & (kDeadControl | kDeadInput)) != 0) {
    propagator_->drop_inputs(it, c);
    switch (c.kind) {
      case OpKind::next_iteration: return out(Empty{});  // C-NEXT-DEAD: deadness stops here
      case OpKind::call: return out(Dead{});             // C-CALL-DEAD: no call is made
      case OpKind::exit: return out(Empty{});            // C-EXIT-DEAD decides, later
      default:  // C-DEAD: no function applied, no variable touched
        every_output(Dead{});
        return out(Dead{});
    }
  }
  InlineVector<Token, 4> args;
  for (std::uint32_t i = 0; i < c.in_count; ++i) args.push_back(take(i));
  switch (c.kind) {
    case Op::Kind::function:
      if (c.constant != 0) {
        if (placement_.on_accelerator[t.node]) data.emplace_back(device_constants_[c.constant - 1]);
        else
          for (const auto& v : host_constants(c)) data.push_back(v);
      } else {
        compute(run, t, std::span<Token>(args.data(), args.size()), rng, data);
      }
      break;
    case Op::Kind::var: data.emplace_back(c.var); break;
    case Op::Kind::read: data.push_back(read(t)); break;
    case Op::Kind::assign: assign(run, t, std::move(args[1]), rng); break;
    case OpKind::switch_: {  // C-SWITCH
      const auto* b = args[1].scalar();  // a bool scalar is its value; anything else, switch_predicate's
      std::variant<bool, Tensor> pred = false;
      if (b != nullptr && b->dtype == DType::boolean) {
        pred = b->boolean;
      } else {
        const auto p = on_host(run, std::move(args[1]));
        if (p.is_term()) {  // X-HALT: a run takes one path, and a term leaves the choice to the path condition
          run.stop(Halt::Why::term_predicate, t.node, graph_, t.it, p.to_string(8));
          return;  // nothing sent: the run is given up (Executor::finish)
        }
        pred = switch_predicate(p);
      }
      if (const auto* error = std::get_if<Tensor>(&pred)) {
        it.flags[c.local] |= kErrorPredicate;  // down both branches: a loop or a recursion goes on (X-HALT)
        it.error_predicate.store(true, std::memory_order_relaxed);
        every_output(*error);
      } else {
        const bool taken = std::get<bool>(pred);
        data.push_back(taken ? Token(Dead{}) : std::move(args[0]));
        data.push_back(taken ? std::move(args[0]) : Token(Dead{}));
      }
      break;
    }
    case OpKind::recv: every_output(args[0]); break;  // S-RECV: the rendezvous's value to every consumer
    default: data.push_back(std::move(args[0])); break;  // Enter, Exit, NextIteration, Call, Return, RefIdentity, Send
  }
  out(Go{});
}

namespace {

// The number of tasks at the top of the local stack in instances deeper than t's.
template <class Stack>
std::size_t deeper_on_top(const Stack& local, const Task& t) {
  const auto depth = t.it->inst->depth;
  std::size_t k = 0;
  while (k < local.size() && (local.end() - 1 - k)->it->inst->depth > depth) ++k;
  return k;
}

// A stolen task whose work took less than this is short: its thief waits
// longer before it asks again (Executor::serve), so that a program with little
// to share (Ackermann's calls depend on each other) does not hand tasks back
// and forth for less than handing them costs.
constexpr auto kShortSteal = std::chrono::microseconds(50);
constexpr std::uint32_t kMaxDelayUs = 2000;
// A thief waits for its next task, awake, as long as its work since its last
// steal ran, up to this: a giver running tasks as heavy (kernels) answers
// within that time, and handing a task to a sleeper costs its wake.
constexpr std::chrono::microseconds kMaxPatience{50000};
// A busy worker hands a task to a sleeping one, woken (Sharing::offer), when
// its stack holds this many tasks, or holds two or more and its last task ran
// this long (a heavy kernel): enough work that waking a core pays.
constexpr std::size_t kRouseAt = 8;
constexpr auto kRouseAfter = std::chrono::microseconds(200);

}  // namespace

// Fires the tasks of this worker's stack until it is empty. Each firing goes
// on with its one ready successor; the others go on the stack. As on a call
// stack, a callee's tasks left on the stack run before its callers go on: a
// task in a shallower instance (a Return fed by a result, a loop's Exit, and
// what they fire at once further up) goes under the deeper tasks on top.
// Otherwise a callee's DEAD branch, left on the stack while its live result
// went on up, would keep its instance until the end of the run (Ackermann:
// tens of thousands of instances, gigabytes, at once). Between firings, with
// more than one worker, a hungry worker gets the bottom of the stack (share).
void Executor::work(Run& run, std::uint32_t w, Stack& local, RandomScheduler& rng) {
  Ready ready;
  ready.worker = w;
  const bool perturb = run.perturb;
  const bool workers = workers_ != nullptr;
  Crowded crowded;
  while (!local.empty()) {
    if (run.halted.load(std::memory_order_relaxed)) {  // X-HALT: what is left is not fired
      local.clear();
      return;
    }
    if (workers) share(run, local, crowded);
    auto m = local.back();
    local.pop_back();
    for (;;) {
      ready.clear();
      fire(run, m, rng, ready);
      if (ready.size() != 1 || deeper_on_top(local, ready[0]) > 0 || run.halted.load(std::memory_order_relaxed)) break;
      m = ready[0];  // the one successor ready: fired next, on this thread, without the stack
    }
    if (perturb) rng.shuffle(ready);
    for (const auto& t : ready) {
      const auto k = deeper_on_top(local, t);
      local.push_back(t);
      std::rotate(local.end() - 1 - k, local.end() - 1, local.end());
    }
  }
}

// Instances are locked (Propagation::shared) only while more than one
// worker is busy: a worker alone leaves the shared mode, and one that offers
// a task enters it first. Both happen between firings, and the flag is
// written only when it changes, which only a worker that nothing else runs
// beside does (the mode is off only while one worker is busy), so no lock is
// held when it changes and no other thread reads it then. A worker that
// offers while others are busy leaves the flag alone: they read it.
void Executor::share(Run& run, Stack& local, Crowded& crowded) {
  if (run.shared && run.sharing.alone()) run.shared = false;
  bool rouse = false;
  if (local.size() >= 2 && run.sharing.drowsy()) {  // the clock read only then
    const auto now = std::chrono::steady_clock::now();
    // Since the last look: how long the last task ran (a heavy kernel) while another worker slept.
    rouse = local.size() >= kRouseAt || (crowded && now - *crowded >= kRouseAfter);
    crowded = now;
  } else {
    crowded.reset();
  }
  if (local.size() < 2 || !(rouse || run.sharing.wanted())) return;  // a worker keeps one task
  const bool entered = !run.shared;
  if (entered) run.shared = true;
  if (run.sharing.offer(local[0], rouse)) local.erase(local.begin());
  else if (entered) run.shared = false;
}

// Worker w's part of a run: its stack until it is empty, then tasks it takes
// from the others, until the run is over.
void Executor::serve(Run& run, std::uint32_t w, Stack& local, std::uint64_t seed) {
  RandomScheduler rng(seed);
  std::uint32_t delay = 0;
  std::chrono::microseconds patience{0};
  bool stolen = false;
  auto since = std::chrono::steady_clock::now();
  for (;;) {
    work(run, w, local, rng);
    if (stolen) {
      const auto took = std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - since);
      delay = took < kShortSteal ? std::min(kMaxDelayUs, std::max(10U, delay * 2)) : 0;
      patience = std::min(took, kMaxPatience);
    }
    Task t;
    if (!run.sharing.take(t, delay, patience)) return;
    stolen = true;
    since = std::chrono::steady_clock::now();
    local.push_back(t);
  }
}

void Executor::finish(Run& run, RunResult& r) {
  r.halt = std::exchange(run.halt, std::nullopt);
  r.stuck = !r.halt && (!run.finished || run.stuck_iteration.load(std::memory_order_relaxed));
  if (!run.finished) propagator_->abandon(run.root);
  r.var_value.clear();
  r.accesses.resize(vars_.size());
  for (std::size_t i = 0; i < vars_.size(); ++i) {
    auto& x = *vars_[i];
    if (options_.var_values) r.var_value.push_back(on_host(run, x.value));
    std::swap(r.accesses[i], x.accesses);  // x's log, emptied by start_run, keeps r's old buffer
  }
  r.fetched = std::move(run.fetched);
  for (auto& [k, v] : run.on_device) r.fetched[k] = on_host(run, std::move(v));
  run.on_device.clear();
  // What this run did not fetch (a stuck run's) is EMPTY, not an earlier
  // run's. memchr finds the next one: a run that fetched all of a million
  // outputs costs one pass of a vectorized scan.
  const auto* now = run.fetched_now.data();
  const auto* end = now + run.fetched_now.size();
  while (now != end) {  // (memchr takes no null pointer, which an empty vector's data may be)
    const auto* unfetched = static_cast<const std::uint8_t*>(std::memchr(now, 0, static_cast<std::size_t>(end - now)));
    if (unfetched == nullptr) break;
    r.fetched[static_cast<std::size_t>(unfetched - run.fetched_now.data())] = Empty{};
    now = unfetched + 1;
  }
  r.handed = run.sharing.handed();
  r.uploads = run.uploads.exchange(0);
  r.downloads = run.downloads.exchange(0);
  std::swap(r.choices, run.choices);  // run.choices, emptied by start_run, keeps r's old buffer
}

std::vector<std::pair<std::string, Content>> Executor::outputs(const RunResult& r) const {
  std::vector<std::pair<std::string, Content>> out;
  for (std::size_t i = 0; i < graph_.fetched.size(); ++i)
    out.emplace_back(graph_.program->fetch(graph_.program->edge(EdgeId(graph_.fetched[i]))), r.fetched[i]);
  return out;
}

// S-INIT (Propagator::start): `ready` gets the nodes that can fire.
Executor::Run& Executor::start_run(Ready& ready, bool forced, RunResult& r) {
  if (!run_) run_ = std::make_unique<Run>();
  auto& run = *run_;
  run.fetched = std::move(r.fetched);  // the result's buffers, which the run's fetches overwrite
  for (auto& x : vars_) x->accesses.clear();
  run.forced.clear();
  run.perturb = options_.perturb_seed.has_value();
  run.seed = hash_combine(options_.perturb_seed.value_or(0x7f4a7c15), runs_++);
  run.sharing.start(workers_ ? workers_->size() : 1);
  propagator_->start(run, !forced, ready);
  return run;
}

RunResult Executor::run() {
  RunResult r;
  run(r);
  return r;
}

void Executor::run(RunResult& r) {
  Ready ready;
  auto& run = start_run(ready, false, r);
  RandomScheduler rng(run.seed);
  if (run.perturb) rng.shuffle(ready);
  propagator_->complete_at_start(run, ready);
  Stack local;  // worker 0's stack: the first ready task on top
  for (auto i = ready.size(); i-- > 0;) local.push_back(ready[i]);
  if (!workers_) {
    RandomScheduler mine(rng.next());
    work(run, 0, local, mine);
    finish(run, r);
    return;
  }
  const auto seed = rng.next();
  workers_->run([&](std::uint32_t w) {
    Stack none;
    serve(run, w, w == 0 ? local : none, hash_combine(seed, w));
  });
  finish(run, r);
}

RunResult Executor::run_schedule(const Schedule& schedule) {
  if (graph_.program->has_control_flow())
    throw InputError("X-EXEC", "schedule", "the schedule",
                     "a forced schedule runs a graph without control flow; tfsem check and trace replay this one");
  Ready ready;
  RunResult r;
  auto& run = start_run(ready, true, r);
  run.perturb = false;
  run.forced.assign(graph_.nodes.size(), 0);
  for (const auto& step : schedule) run.forced[step.node.value] = step.choice;
  RandomScheduler rng(run.seed);
  for (std::size_t i = 0; i < schedule.size(); ++i) {
    const auto n = schedule[i].node.value;
    const auto at = std::find_if(ready.begin(), ready.end(), [&](const Task& t) { return t.node == n; });
    if (at == ready.end()) {
      finish(run, r);  // the steps before it: the root given back, the access logs taken
      throw InputError("T-SCHEDULE", "schedule", "step " + std::to_string(i + 1),
                       "node '" + graph_.program->node(schedule[i].node).name() + "' is not ready in the executor");
    }
    const auto t = *at;
    ready.erase(at);
    fire(run, t, rng, ready);
  }
  finish(run, r);
  return r;
}

}  // namespace tfsem::fast_exec
