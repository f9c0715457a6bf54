// Frame instances and iteration states, kept in per-frame pools for reuse.
#include "fast_exec/instances.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <new>
#include <thread>

namespace tfsem::fast_exec {

void SpinLock::wait() const {
  for (int spins = 0; holder_.load(std::memory_order_relaxed) != kFree; ++spins) {
    if (spins < 1000) {
#if defined(__x86_64__) || defined(__i386__)
      __builtin_ia32_pause();
#endif
    } else {
      std::this_thread::yield();  // its holder may wait for this core
    }
  }
}

LineArena::~LineArena() {
  for (const auto& chunk : chunks_) ::operator delete(chunk.first, std::align_val_t(kLine));
}

void* LineArena::take(std::size_t bytes) {
  bytes = (bytes + kLine - 1) / kLine * kLine;
  if (chunks_.empty() || used_ + bytes > chunks_.back().second) {
    const auto size = std::max(kChunk, bytes);
    chunks_.emplace_back(static_cast<std::byte*>(::operator new(size, std::align_val_t(kLine))), size);
    used_ = 0;
  }
  auto* p = chunks_.back().first + used_;
  used_ += bytes;
  return p;
}

InstancePools::InstancePools(const CompiledGraph& g, Calls calls, std::uint32_t workers) : graph_(g), calls_(calls) {
  for (std::size_t f = 0; f < g.frames.size(); ++f) {
    pools_.push_back(std::make_unique<Pool>());
    pools_.back()->free.resize(workers);
  }
}

InstancePools::~InstancePools() {
  for (auto& pool : pools_) {
    for (auto* it : pool->owned_iterations) IterState::destroy(it);
    for (auto* inst : pool->owned_instances) inst->~Instance();
  }
}

namespace {

// Where an array of n T starts in a block, past `at` bytes, aligned for T.
template <class T>
std::size_t place(std::size_t& at, std::size_t n) {
  const auto begin = (at + alignof(T) - 1) / alignof(T) * alignof(T);
  at = begin + n * sizeof(T);
  return begin;
}

template <class T>
std::span<T> array_at(std::byte* block, std::size_t begin, std::size_t n) {
  return {reinterpret_cast<T*>(block + begin), n};
}

}  // namespace

IterState* IterState::make(const CompiledFrame& cf, LineArena* arena) {
  const auto nodes = cf.nodes.size();
  std::size_t at = sizeof(IterState);
  const auto slots = place<Token>(at, cf.slots);
  const auto children = place<Instance*>(at, cf.children);
  const auto ints = place<std::int32_t>(at, 2 * nodes + cf.children);  // pending, aux, dead_calls
  const auto flags = place<std::uint8_t>(at, nodes);
  auto* block = static_cast<std::byte*>(arena != nullptr ? arena->take(at) : ::operator new(at));
  auto* it = new (block) IterState;
  it->slots = array_at<Token>(block, slots, cf.slots);
  std::uninitialized_default_construct(it->slots.begin(), it->slots.end());
  it->children = array_at<Instance*>(block, children, cf.children);
  std::fill(it->children.begin(), it->children.end(), nullptr);
  const auto all = array_at<std::int32_t>(block, ints, 2 * nodes + cf.children);
  std::fill(all.begin(), all.end(), 0);
  it->pending = all.subspan(0, nodes);
  it->aux = all.subspan(nodes, nodes);
  it->dead_calls = all.subspan(2 * nodes);
  it->flags = array_at<std::uint8_t>(block, flags, nodes);
  std::fill(it->flags.begin(), it->flags.end(), std::uint8_t{0});
  return it;
}

void IterState::destroy(IterState* it) noexcept {
  std::destroy(it->slots.begin(), it->slots.end());
  it->~IterState();
}

IterState* InstancePools::make_iteration(std::uint32_t f, LineArena* arena) const {
  return IterState::make(graph_.frames[f], arena);
}

Instance* InstancePools::make_instance(std::uint32_t f, LineArena* arena) const {
  const auto& cf = graph_.frames[f];
  auto* inst = arena != nullptr ? new (arena->take(sizeof(Instance))) Instance : new Instance;
  inst->ring.assign(cf.kind == Frame::Kind::loop ? 4 : 1, nullptr);
  inst->exit_fired.assign(cf.exits.size(), 0);
  return inst;
}

// One from worker w's free list, or a new one owned by the pool; with
// Calls::dynamic, a call's always new, made from the function's body.
template <class T, class Make>
T* InstancePools::take(std::uint32_t f, std::uint32_t w, std::vector<T*> Free::*free, std::vector<T*> Pool::*owned,
                       Make make) {
  if (fresh(f)) return make(f, nullptr);
  auto& pool = *pools_[f];
  auto& list = pool.free[w].*free;
  if (list.empty()) {
    const std::lock_guard guard(pool.lock);
    return (pool.*owned).emplace_back(make(f, &pool.arena));
  }
  auto* x = list.back();
  list.pop_back();
  return x;
}

IterState* InstancePools::iteration(std::uint32_t f, std::uint32_t w) {
  auto* it = take(f, w, &Free::iterations, &Pool::owned_iterations, [this](std::uint32_t g, LineArena* a) { return make_iteration(g, a); });
  const auto& pending = graph_.frames[f].pending;
  std::copy(pending.begin(), pending.end(), it->pending.begin());  // the same size: no allocation
  std::fill(it->flags.begin(), it->flags.end(), std::uint8_t{0});
  std::fill(it->dead_calls.begin(), it->dead_calls.end(), 0);  // a stuck iteration may leave some counted
  it->outstanding_ops = it->outstanding_frames = 0;
  it->fired = 0;
  it->error_predicate.store(false, std::memory_order_relaxed);
  return it;
}

void InstancePools::give_back(std::uint32_t f, IterState* it, std::uint32_t w) {
  if (fresh(f)) {
    IterState::destroy(it);
    ::operator delete(it);
    return;
  }
  for (auto& s : it->slots)  // tokens nobody took: dead branches, a Merge's other inputs
    if (!s.empty()) s = Token{};
  pools_[f]->free[w].iterations.push_back(it);
}

Instance* InstancePools::instance(std::uint32_t f, std::uint32_t w) {
  auto* inst = take(f, w, &Free::instances, &Pool::owned_instances, [this](std::uint32_t g, LineArena* a) { return make_instance(g, a); });
  inst->frame = f;
  inst->parent = nullptr;
  inst->depth = inst->calls = 0;
  inst->error_call = false;
  inst->set_inputs_pending(0);
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
