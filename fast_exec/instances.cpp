// Frame instances and iteration states, kept in per-frame pools for reuse.
#include "fast_exec/instances.hpp"

#include <algorithm>

#if defined(__SANITIZE_THREAD__)
#include <sanitizer/tsan_interface.h>
#endif

namespace tfsem::fast_exec {

namespace {

// A pooled instance's lock is a new lock each time the instance is taken from
// the pool: it is ordered before its caller's (fire_at_once) only while the
// instance lives. ThreadSanitizer, which knows a lock by its address, is told
// so; otherwise an address reused at another depth reads as an inverted order.
void renew([[maybe_unused]] std::mutex& lock) {
#if defined(__SANITIZE_THREAD__)
  __tsan_mutex_destroy(&lock, 0);
#endif
}

}  // namespace

InstancePools::InstancePools(const CompiledGraph& g, Calls calls) : graph_(g), calls_(calls) {
  for (std::size_t f = 0; f < g.frames.size(); ++f) pools_.push_back(std::make_unique<Pool>());
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

// One from the free list, or a new one owned by the pool; with Calls::dynamic, a
// call's always new, made from the function's body.
template <class T, class Make>
T* InstancePools::take(std::uint32_t f, std::vector<T*> Pool::*free, std::vector<std::unique_ptr<T>> Pool::*owned, Make make,
                        bool shared) {
  if (fresh(f)) return make(f);
  auto& pool = *pools_[f];
  const Guard guard(pool.lock, shared);
  if ((pool.*free).empty()) return (pool.*owned).emplace_back(make(f)).get();
  auto* x = (pool.*free).back();
  (pool.*free).pop_back();
  return x;
}

IterState* InstancePools::iteration(std::uint32_t f, bool shared) {
  auto* it = take(f, &Pool::iterations, &Pool::owned_iterations, [this](std::uint32_t g) { return make_iteration(g); }, shared);
  it->pending = graph_.frames[f].pending;  // the same size: a copy, no allocation
  std::fill(it->flags.begin(), it->flags.end(), std::uint8_t{0});
  std::fill(it->dead_calls.begin(), it->dead_calls.end(), 0);  // a stuck iteration may leave some counted
  it->outstanding_ops = it->outstanding_frames = 0;
  it->fired = 0;
  return it;
}

void InstancePools::give_back(std::uint32_t f, IterState* it, bool shared) {
  if (fresh(f)) {
    delete it;
    return;
  }
  for (auto& s : it->slots)  // tokens nobody took: dead branches, a Merge's other inputs
    if (!s.empty()) s = Token{};
  auto& pool = *pools_[f];
  const Guard guard(pool.lock, shared);
  pool.iterations.push_back(it);
}

Instance* InstancePools::instance(std::uint32_t f, bool shared) {
  auto* inst = take(f, &Pool::instances, &Pool::owned_instances, [this](std::uint32_t g) { return make_instance(g); }, shared);
  renew(inst->lock);
  inst->frame = f;
  inst->parent = nullptr;
  inst->depth = 0;
  inst->pending_inputs = 0;
  inst->iterations = inst->done = inst->first = 0;
  std::fill(inst->exit_fired.begin(), inst->exit_fired.end(), std::uint8_t{0});
  return inst;
}

void InstancePools::give_back(Instance* inst, bool shared) {
  if (fresh(inst->frame)) {
    delete inst;
    return;
  }
  inst->invariants.clear();
  auto& pool = *pools_[inst->frame];
  const Guard guard(pool.lock, shared);
  pool.instances.push_back(inst);
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
