// What a search keeps per level (a state's level is the number of firings
// from the initial state), for the levels that hold something. A run of
// deterministic firings settles in one step and skips the levels between
// (while-sum's 100,000 iterations put its second state 1.4 million levels
// after the first), so a vector by level would grow with the firings; this
// grows with the levels in use. References stay valid until their level is
// erased.
#pragma once

#include "explorer/checkpoint_file.hpp"

#include <cstddef>
#include <cstdint>
#include <map>

namespace tfsem::explorer {

// No level: what Levels::next finds past the last one.
inline constexpr std::uint64_t kNoLevel = ~std::uint64_t{0};

// Reads the levels a checkpoint lists: their count, then for each, in
// increasing order, its number and what read(level) reads, at least
// `entry_bytes` a level with its number. A level out of order is refused.
template <class Read>
void read_levels(CheckpointIn& in, std::size_t entry_bytes, Read&& read) {
  const auto count = in.size(UINT32_MAX, entry_bytes);
  std::uint64_t after = 0;
  for (std::uint64_t k = 0; k < count; ++k) {
    const auto l = in.pod<std::uint64_t>();
    if (l < after || l == kNoLevel) throw CheckpointError(in.path() + ": corrupted: the levels' order");
    after = l + 1;
    read(l);
  }
}

template <class T>
class Levels {
 public:
  // Level l's entry, made empty when missing.
  T& operator[](std::size_t l) { return map_[l]; }
  [[nodiscard]] T* find(std::size_t l) {
    const auto it = map_.find(l);
    return it == map_.end() ? nullptr : &it->second;
  }
  [[nodiscard]] const T* find(std::size_t l) const {
    const auto it = map_.find(l);
    return it == map_.end() ? nullptr : &it->second;
  }
  // The first level at or after l that has an entry; kNoLevel when none does.
  [[nodiscard]] std::size_t next(std::size_t l) const {
    const auto it = map_.lower_bound(l);
    return it == map_.end() ? kNoLevel : it->first;
  }
  void erase(std::size_t l) { map_.erase(l); }
  [[nodiscard]] std::size_t size() const { return map_.size(); }
  [[nodiscard]] bool empty() const { return map_.empty(); }
  // f(level, entry) for each level with an entry, in increasing order.
  template <class F>
  void each(F&& f) const {
    for (const auto& [l, v] : map_) f(l, v);
  }
  // f(level, entry) for each level in [first, last] with an entry.
  template <class F>
  void each_in(std::size_t first, std::size_t last, F&& f) const {
    for (auto it = map_.lower_bound(first); it != map_.end() && it->first <= last; ++it) f(it->first, it->second);
  }
  // The bytes of an entry's node beside what the entry itself allocates.
  static constexpr std::size_t kNodeBytes = sizeof(T) + 4 * sizeof(void*);

 private:
  std::map<std::size_t, T> map_;
};

}  // namespace tfsem::explorer
