#include "semantics/context.hpp"

#include "support/hash.hpp"

#include <algorithm>
#include <atomic>

namespace tfsem {

namespace {

std::size_t key_hash(ContextId parent, FrameId f, std::uint32_t iteration) {
  return hash_combine(std::uint64_t{parent.value} << 32 | f.value, iteration);
}

}  // namespace

Contexts::Contexts() { entries_.push_back({ContextId{}, FrameId(std::uint32_t{0}), 0, 0, 0, kRootContext, ContextId{}}); }

ContextId Contexts::intern(ContextId parent, FrameId f, std::uint32_t iteration, bool call) const {
  const std::lock_guard lock(mutex_);
  if (const auto known = find(parent, f, iteration); known.valid()) return known;
  // A loop's iterations before this one are interned first, in order, so that
  // every entry can name its previous one: from the last one interned, without
  // recursion. A call (its "iteration" is the call site) has no previous one.
  std::uint32_t i = iteration;
  ContextId previous;
  while (!call && i > 0 && !previous.valid()) {
    if (previous = find(parent, f, i - 1); !previous.valid()) --i;
  }
  const auto& up = entries_[parent.index()];
  ContextId id;
  for (; i <= iteration; ++i, previous = id) {
    id = ContextId(entries_.size());
    const ContextId first = i == 0 || call ? id : entries_[previous.index()].first;
    entries_.push_back({parent, f, i, up.depth + 1, up.calls + (call ? 1U : 0U), first, previous});
    index(id);
    if (previous.valid()) std::atomic_ref(entries_[previous.index()].next).store(id.value, std::memory_order_release);
  }
  return id;
}

ContextId Contexts::find(ContextId parent, FrameId f, std::uint32_t iteration) const {
  const auto mask = index_.size() - 1;
  for (auto pos = key_hash(parent, f, iteration) & mask; index_[pos] != 0; pos = (pos + 1) & mask) {
    const auto& e = entries_[index_[pos]];
    if (e.parent == parent && e.frame == f && e.iteration == iteration) return ContextId(index_[pos]);
  }
  return {};
}

void Contexts::index(ContextId c) const {
  const auto place = [&](std::uint32_t id) {
    const auto& e = entries_[id];
    const auto mask = index_.size() - 1;
    auto pos = key_hash(e.parent, e.frame, e.iteration) & mask;
    while (index_[pos] != 0) pos = (pos + 1) & mask;
    index_[pos] = id;
  };
  // At most half full. Every context before c (c is the last interned) but the root is in it.
  if (2 * entries_.size() > index_.size()) {
    index_.assign(2 * index_.size(), 0);
    for (std::uint32_t k = 1; k < c.value; ++k) place(k);
  }
  place(c.value);
}

std::size_t Contexts::bytes() const {
  const std::lock_guard lock(mutex_);  // the index grows under it
  return entries_.bytes() + index_.capacity() * sizeof(std::uint32_t);
}

ContextId Contexts::next_iteration(ContextId c) const {
  auto& e = entries_[c.index()];
  if (const auto next = std::atomic_ref(e.next).load(std::memory_order_acquire); next != UINT32_MAX) return ContextId(next);
  return child(e.parent, e.frame, e.iteration + 1);
}

bool Contexts::within(ContextId c, ContextId outer) const {
  const auto d = (*this)[outer].depth;
  return (*this)[c].depth >= d && at_depth(c, d) == outer;
}

ContextId Contexts::at_depth(ContextId c, std::uint32_t d) const {
  while ((*this)[c].depth > d) c = (*this)[c].parent;
  return c;
}

bool Contexts::before(ContextId a, ContextId b) const {
  // The first depth where a's and b's entries differ is where they part: walk
  // both up to their common depth, then to the children of their last common
  // context (contexts are interned, so equal entries from the root are one
  // context). O(depth), where comparing at each depth from the root would be
  // O(depth^2).
  const auto& e = *this;
  auto x = a, y = b;
  while (e[x].depth > e[y].depth) x = e[x].parent;
  while (e[y].depth > e[x].depth) y = e[y].parent;
  if (x == y) return e[a].depth < e[b].depth;
  while (e[x].parent != e[y].parent) {
    x = e[x].parent;
    y = e[y].parent;
  }
  if (e[x].frame != e[y].frame) return e[x].frame < e[y].frame;
  return e[x].iteration < e[y].iteration;
}

}  // namespace tfsem
