// Frame instances and iteration states, kept in per-frame pools for reuse.
#include "fast_exec/instances.hpp"

#include <algorithm>
#include <thread>

namespace tfsem::fast_exec {

void SpinLock::wait() const {
  for (int spins = 0; held_.load(std::memory_order_relaxed); ++spins) {
    if (spins < 1000) {
#if defined(__x86_64__) || defined(__i386__)
      __builtin_ia32_pause();
#endif
    } else {
      std::this_thread::yield();  // its holder may wait for this core
    }
  }
}

InstancePools::InstancePools(const CompiledGraph& g, Calls calls, std::uint32_t workers) : graph_(g), calls_(calls) {
  for (std::size_t f = 0; f < g.frames.size(); ++f) {
    pools_.push_back(std::make_unique<Pool>());
    pools_.back()->free.resize(workers);
  }
}

IterState* InstancePools::make_iteration(std::uint32_t f) const {
  const auto& cf = graph_.frames[f];
  auto* it = new IterState;
  it->aux.assign(cf.nodes.size(), 0);
  it->flags.assign(cf.nodes.size(), 0);
  it->slots.resize(cf.slots);
  it->children.assign(cf.children, nullptr);
  it->dead_calls.assign(cf.children, 0);
  return it;
}

Instance* InstancePools::make_instance(std::uint32_t f) const {
  const auto& cf = graph_.frames[f];
  auto* inst = new Instance;
  inst->ring.assign(cf.kind == Frame::Kind::loop ? 4 : 1, nullptr);
  inst->exit_fired.assign(cf.exits.size(), 0);
  return inst;
}

// One from worker w's free list, or a new one owned by the pool; with
// Calls::dynamic, a call's always new, made from the function's body.
template <class T, class Make>
T* InstancePools::take(std::uint32_t f, std::uint32_t w, std::vector<T*> Free::*free,
                       std::vector<std::unique_ptr<T>> Pool::*owned, Make make) {
  if (fresh(f)) return make(f);
  auto& pool = *pools_[f];
  auto& list = pool.free[w].*free;
  if (list.empty()) {
    const std::lock_guard guard(pool.lock);
    return (pool.*owned).emplace_back(make(f)).get();
  }
  auto* x = list.back();
  list.pop_back();
  return x;
}

IterState* InstancePools::iteration(std::uint32_t f, std::uint32_t w) {
  auto* it = take(f, w, &Free::iterations, &Pool::owned_iterations, [this](std::uint32_t g) { return make_iteration(g); });
  it->pending = graph_.frames[f].pending;  // the same size: a copy, no allocation
  std::fill(it->flags.begin(), it->flags.end(), std::uint8_t{0});
  std::fill(it->dead_calls.begin(), it->dead_calls.end(), 0);  // a stuck iteration may leave some counted
  it->outstanding_ops = it->outstanding_frames = 0;
  it->fired = 0;
  return it;
}

void InstancePools::give_back(std::uint32_t f, IterState* it, std::uint32_t w) {
  if (fresh(f)) {
    delete it;
    return;
  }
  for (auto& s : it->slots)  // tokens nobody took: dead branches, a Merge's other inputs
    if (!s.empty()) s = Token{};
  pools_[f]->free[w].iterations.push_back(it);
}

Instance* InstancePools::instance(std::uint32_t f, std::uint32_t w) {
  auto* inst = take(f, w, &Free::instances, &Pool::owned_instances, [this](std::uint32_t g) { return make_instance(g); });
  inst->frame = f;
  inst->parent = nullptr;
  inst->depth = 0;
  inst->pending_inputs = 0;
  inst->iterations = inst->done = inst->first = 0;
  std::fill(inst->exit_fired.begin(), inst->exit_fired.end(), std::uint8_t{0});
  return inst;
}

void InstancePools::give_back(Instance* inst, std::uint32_t w) {
  if (fresh(inst->frame)) {
    delete inst;
    return;
  }
  inst->invariants.clear();
  pools_[inst->frame]->free[w].instances.push_back(inst);
}

std::size_t InstancePools::instances_held(std::uint32_t f) const {
  auto& pool = *pools_[f];
  const std::lock_guard guard(pool.lock);
  return pool.owned_instances.size();
}

ExecContext context_of(const CompiledGraph& g, const IterState* it) {
  ExecContext c;
  for (; it->inst->parent != nullptr; it = it->inst->parent) {
    const auto& inst = *it->inst;
    c.emplace_back(FrameId(inst.frame), g.frames[inst.frame].kind == Frame::Kind::function ? inst.site : it->iteration);
  }
  std::reverse(c.begin(), c.end());
  return c;
}

}  // namespace tfsem::fast_exec
