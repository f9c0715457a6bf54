// The visited states of a search, shared by explore.cpp and distributed.cpp:
// the state table (state_table.hpp), and for each stored state how it was
// first reached (its Arrival, a type of the search's own), the number of
// explored behaviours reaching it, its sleep set while it is unexpanded, and
// the unexpanded states by level (firings from the initial state). Arrivals
// and path counts live in fixed-size chunks, so growing never holds the old
// storage and the new at once.
#pragma once

#include "explorer/expansion.hpp"
#include "explorer/state_table.hpp"
#include "semantics/append_only.hpp"

#include <span>
#include <unordered_map>
#include <vector>

namespace tfsem::explorer {

template <class Arrival>
class Visited {
 public:
  // Room for max_states states (at most 2^32).
  explicit Visited(std::size_t width, std::size_t max_states = kMaxStates)
      : table_(width), arrival_(chunks_for(max_states)), paths_(chunks_for(max_states)) {}

  // Records an arrival at a state `level` firings from the initial state,
  // along `paths` behaviours, with sleep set `sleep`. A new state is stored
  // and queued at its level; a known one gains the paths, and sleeps only on
  // what both sleep sets agree on (its arrival stays the first). Returns the
  // state's index and whether it is new.
  std::pair<StateIndex, bool> add(std::span<const Code> row, std::uint64_t hash, const Arrival& how, std::size_t level,
                                  std::span<const Transition> sleep, PathCount paths) {
    const auto [i, fresh] = table_.insert(row, hash);
    if (fresh) {
      arrival_.push_back(how);
      paths_.push_back(paths);
      if (levels_.size() <= level) levels_.resize(level + 1);
      levels_[level].push_back(i);
      if (!sleep.empty()) sleep_.emplace(i, SleepSet(sleep.begin(), sleep.end()));
    } else {
      paths_[i] = saturating_add(paths_[i], paths);
      sleep_again(i, sleep);
    }
    return {i, fresh};
  }

  // The sleep set of a state about to be expanded (nothing arrives at it any more).
  SleepSet take_sleep(StateIndex i) {
    const auto it = sleep_.find(i);
    if (it == sleep_.end()) return {};
    auto s = std::move(it->second);
    sleep_.erase(it);
    return s;
  }

  [[nodiscard]] const StateTable& table() const { return table_; }
  [[nodiscard]] std::size_t size() const { return table_.size(); }
  [[nodiscard]] const Arrival& arrival(StateIndex i) const { return arrival_[i]; }
  [[nodiscard]] PathCount paths(StateIndex i) const { return paths_[i]; }
  // The unexpanded states by level; the search takes a level out before expanding it.
  [[nodiscard]] std::vector<std::vector<StateIndex>>& levels() { return levels_; }

  [[nodiscard]] std::size_t bytes() const {
    std::size_t queued = 0;
    for (const auto& l : levels_) queued += l.capacity() * sizeof(StateIndex);
    return table_.bytes() + arrival_.bytes() + paths_.bytes() + queued + sleep_.size() * 64 + sleep_.bucket_count() * sizeof(void*);
  }

  // What storing up to n more states, none longer than `width` codes, at
  // levels first..last, may allocate while storage it replaces is still held.
  [[nodiscard]] std::size_t growth_bytes(std::size_t n, std::size_t width, std::size_t first, std::size_t last) const {
    auto growth = table_.growth_bytes(n, width) + chunk_bytes(arrival_.size(), n, sizeof(Arrival)) +
                  chunk_bytes(paths_.size(), n, sizeof(PathCount));
    for (auto l = first; l <= last && l < levels_.size(); ++l)
      if (levels_[l].size() + n > levels_[l].capacity()) growth += (levels_[l].size() + n) * sizeof(StateIndex);
    if (static_cast<double>(sleep_.size() + n) > static_cast<double>(sleep_.bucket_count()) * sleep_.max_load_factor())
      growth += 2 * sleep_.bucket_count() * sizeof(void*);
    return growth;
  }

 private:
  // At most 2^32 states, in chunks of 2^16.
  static constexpr std::size_t kMaxStates = std::size_t{1} << 32, kChunk = std::size_t{1} << 16;
  template <class T>
  using Chunked = AppendOnly<T, 16, kMaxStates / kChunk>;
  static std::size_t chunks_for(std::size_t states) { return (std::min(states, kMaxStates) + kChunk - 1) / kChunk; }

  // The chunks that n more elements after `size` start.
  static std::size_t chunk_bytes(std::size_t size, std::size_t n, std::size_t element) {
    return ((size + n + kChunk - 1) / kChunk - (size + kChunk - 1) / kChunk) * kChunk * element;
  }

  // A state reached again before its expansion sleeps only on what every path
  // agrees on: its sleep set (absent: empty) becomes the intersection with `sleep`.
  void sleep_again(StateIndex state, std::span<const Transition> sleep) {
    const auto it = sleep_.find(state);
    if (it == sleep_.end()) return;
    SleepSet both;
    std::set_intersection(it->second.begin(), it->second.end(), sleep.begin(), sleep.end(), std::back_inserter(both));
    if (both.empty()) sleep_.erase(it);
    else it->second = std::move(both);
  }

  StateTable table_;
  Chunked<Arrival> arrival_;
  Chunked<PathCount> paths_;
  std::vector<std::vector<StateIndex>> levels_;
  std::unordered_map<StateIndex, SleepSet> sleep_;
};

}  // namespace tfsem::explorer
