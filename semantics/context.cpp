#include "semantics/context.hpp"

#include "semantics/hash.hpp"

#include <algorithm>

namespace tfsem {

std::size_t Contexts::KeyHash::operator()(const Key& k) const noexcept {
  return hash_combine(hash_combine(k.parent.value, k.frame.value), k.iteration);
}

Contexts::Contexts() { entries_.push_back({ContextId{}, FrameId(std::uint32_t{0}), 0, 0, 0, kRootContext, ContextId{}}); }

ContextId Contexts::intern(ContextId parent, FrameId f, std::uint32_t iteration, bool call) const {
  // The previous iteration is interned first, so that every entry can name it.
  const ContextId previous = iteration == 0 || call ? ContextId{} : child(parent, f, iteration - 1);
  const std::lock_guard lock(mutex_);
  const Key key{parent, f, iteration};
  if (const auto it = index_.find(key); it != index_.end()) return it->second;
  const ContextId id(entries_.size());
  const ContextId first = iteration == 0 || call ? id : entries_[previous.index()].first;
  const auto& up = entries_[parent.index()];
  entries_.push_back({parent, f, iteration, up.depth + 1, up.calls + (call ? 1U : 0U), first, previous});
  index_.emplace(key, id);
  return id;
}

ContextId Contexts::next_iteration(ContextId c) const {
  const auto& e = (*this)[c];
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
  const auto depth = std::min((*this)[a].depth, (*this)[b].depth);
  for (std::uint32_t d = 1; d <= depth; ++d) {
    const auto& x = (*this)[at_depth(a, d)];
    const auto& y = (*this)[at_depth(b, d)];
    if (x.frame != y.frame) return x.frame < y.frame;
    if (x.iteration != y.iteration) return x.iteration < y.iteration;
  }
  return (*this)[a].depth < (*this)[b].depth;
}

}  // namespace tfsem
