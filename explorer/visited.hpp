// The visited states of a search, shared by explore.cpp and distributed.cpp:
// the state table (state_table.hpp), for each stored state how it was first
// reached (its Arrival, a type of the search's own), and for the unexpanded
// states, by level (firings from the initial state), the number of explored
// behaviours reaching each and its sleep set. Which states a level holds,
// and in which order they are expanded, is the search's own list. Arrivals
// live in fixed-size chunks, so growing never holds the old storage and the
// new at once. A path count and a sleep set are kept while their state is
// unexpanded, found by its position in its level (no allocation per state):
// every arrival at a state comes from an earlier level, so both are final
// when it is expanded. A state's entry (where its sleep set starts, its path
// count) goes once it has been expanded (taken); the level's sleep sets go
// with the level. The entries are a deque: a level of tens of millions of
// states grows block by block, never holding a copy of itself or twice its
// size, as a vector's doubling would at the peak of a large search. A
// state's position is kept only while it may be looked up: a chunk of
// positions goes once every level its states were queued at has been
// expanded.
#pragma once

#include "explorer/checkpoint_file.hpp"
#include "explorer/levels.hpp"
#include "explorer/queue_positions.hpp"
#include "explorer/result.hpp"
#include "explorer/state_table.hpp"
#include "support/append_only.hpp"

#include <algorithm>
#include <deque>
#include <span>
#include <cassert>
#include <stdexcept>
#include <vector>

namespace tfsem::explorer {

// What vector v may allocate while it takes n more elements (null: a vector
// not started yet, empty): its doublings end below twice what it will hold.
template <class T>
std::size_t doubling_bytes(const std::vector<T>* v, std::size_t n) {
  const auto size = v != nullptr ? v->size() : 0, capacity = v != nullptr ? v->capacity() : 0;
  return size + n > capacity ? 2 * (size + n) * sizeof(T) : 0;
}

// A deque's blocks (libstdc++: 512 bytes, or one element if larger) and its
// map of them: what it holds, give or take a block at each end.
template <class T>
std::size_t deque_bytes(std::size_t elements) {
  constexpr std::size_t block = sizeof(T) < 512 ? 512 / sizeof(T) : 1;
  const auto blocks = elements / block + 2;
  return blocks * (block * sizeof(T) + sizeof(void*));
}

// A search's own lists of unexpanded states by level, in the order it
// expands them (the store keeps their path counts and sleep sets), and
// what they hold.
using StateLists = Levels<std::deque<StateIndex>>;
inline std::size_t state_lists_bytes(const StateLists& lists) {
  std::size_t n = 0;
  lists.each([&](std::size_t, const std::deque<StateIndex>& l) { n += StateLists::kNodeBytes + deque_bytes<StateIndex>(l.size()); });
  return n;
}

template <class Arrival>
class Visited {
 public:
  // Room for max_states states (at most 2^32).
  explicit Visited(std::size_t width, std::size_t max_states = kMaxStates) : table_(width), arrival_(chunks_for(max_states)) {}

  // Records an arrival at a state `level` firings from the initial state,
  // along `paths` behaviours, with sleep set `sleep`. A new state is stored
  // and queued at its level; a known one gains the paths, and sleeps only on
  // what both sleep sets agree on (its arrival stays the first). Returns the
  // state's index and whether it is new.
  std::pair<StateIndex, bool> add(std::span<const Code> row, std::uint64_t hash, const Arrival& how, std::size_t level,
                                  std::span<const Transition> sleep, PathCount paths) {
    const auto [i, fresh] = store(row, hash, how);
    if (fresh) queue(i, level, sleep, paths);
    else again(i, level, sleep, paths);
    return {i, fresh};
  }
  // Stores a state, queued nowhere (a resumed search's expanded states,
  // distributed.cpp; queue() queues one); returns its index and whether it
  // is new (a known one is left as it is).
  std::pair<StateIndex, bool> store(std::span<const Code> row, std::uint64_t hash, const Arrival& how) {
    const auto [i, fresh] = table_.insert(row, hash);
    if (fresh) {
      arrival_.push_back(how);
      position_.push_back();
    }
    return {i, fresh};
  }
  // Queues stored state i, unexpanded, at its level with its sleep set and
  // the behaviours reaching it.
  void queue(StateIndex i, std::size_t level, std::span<const Transition> sleep, PathCount paths) {
    auto& s = levels_[level];
    if (s.pool.size() + sleep.size() >= UINT32_MAX) throw std::length_error("sleep sets: 2^32 transitions in one level");
    position_.set(i, static_cast<std::uint32_t>(s.first + s.queued.size()), level);
    s.queued.push_back(Queued::of(static_cast<std::uint32_t>(s.pool.size()), paths));
    s.pool.insert(s.pool.end(), sleep.begin(), sleep.end());
  }
  // Records another arrival at known state i, not yet expanded, as add does.
  void again(StateIndex i, std::size_t level, std::span<const Transition> sleep, PathCount paths) {
    auto& s = *levels_.find(level);
    const auto k = position_[i];
    auto& q = s.at(k);
    q.set_paths(saturating_add(q.paths(), paths));
    const auto [begin, end] = s.sleep_range(k);
    if (const auto kept = sleep_again(s.pool.data(), begin, end, sleep); kept < end) s.pool[kept] = kEnd;
  }

  // The sleep set of state i of level `level`, about to be expanded (nothing
  // arrives at it any more); valid until drop_level(level).
  [[nodiscard]] std::span<const Transition> sleep(std::size_t level, StateIndex i) const {
    const auto& s = *levels_.find(level);
    const auto [begin, end] = s.sleep_range(position_[i]);
    return {s.pool.data() + begin, s.pool.data() + end};
  }
  // The behaviours reaching state i of level `level`, as sleep() is found.
  [[nodiscard]] PathCount paths(std::size_t level, StateIndex i) const { return levels_.find(level)->at(position_[i]).paths(); }
  // Whether state i is queued at `level` as far as the store can tell (a
  // resumed search checks its own lists against it).
  [[nodiscard]] bool queued(std::size_t level, StateIndex i) const {
    const auto* s = levels_.find(level);
    return s != nullptr && position_.held(i) && position_[i] >= s->first && position_[i] - s->first < s->queued.size();
  }
  // State i of `level`, and every state queued there before it, has been
  // expanded and reported: their entries go (the widest level of a large
  // search lets them go as it is expanded, not after; its sleep sets, a few
  // bytes a state, go with the level).
  void taken(std::size_t level, StateIndex i) {
    auto& s = *levels_.find(level);
    const auto k = position_[i];
    if (k < s.first) return;
    assert(k - s.first < s.queued.size());
    s.queued.erase(s.queued.begin(), s.queued.begin() + (k + 1 - s.first));
    s.first = k + 1;
  }
  // Lets go of a level that has been expanded, as has every level before it:
  // its path counts and sleep sets, and the positions no longer looked up.
  void drop_level(std::size_t level) {
    levels_.erase(level);
    position_.expanded(level);
  }

  // For a search that stores each state at its level (StateTable::at_level):
  // once `level` has been expanded, as has every level before it, nothing
  // arrives at it again, so the index lets go of its parts, unless a queued
  // level shares them.
  void drop_level_index(std::size_t level) {
    bool shared = false;
    levels_.each([&](std::size_t l, const Level&) { shared = shared || StateTable::same_parts(l, level); });
    if (!shared) table_.let_go_level(level);
  }

  [[nodiscard]] const StateTable& table() const { return table_; }
  [[nodiscard]] std::size_t size() const { return table_.size(); }
  [[nodiscard]] const Arrival& arrival(StateIndex i) const { return arrival_[i]; }

  [[nodiscard]] std::size_t bytes() const {
    std::size_t queued = 0;
    levels_.each([&](std::size_t, const Level& l) { queued += l.bytes(); });
    return table_.bytes() + arrival_.bytes() + position_.bytes() + queued;
  }

  // The store as it is (checkpoint.hpp); restore() into an empty one.
  void save(CheckpointOut& out) const {
    table_.save(out);
    arrival_.each_chunk([&](const auto* p, std::size_t n) { out.raw(p, n * sizeof *p); });
    position_.save(out);
    out.pod<std::uint64_t>(levels_.size());
    levels_.each([&](std::size_t l, const Level& s) {
      out.pod<std::uint64_t>(l);
      out.pod(s.first);
      out.list(s.queued);
      out.list(s.pool);
    });
  }
  void restore(CheckpointIn& in) {
    table_.restore(in);
    for (std::size_t i = 0; i < table_.size(); ++i) arrival_.push_back(in.pod<Arrival>());
    position_.restore(in, table_.size());
    read_levels(in, 28, [&](std::uint64_t l) {  // a number, the first position and two lists
      auto& s = levels_[l];
      s.first = in.pod<std::uint32_t>();
      in.list_into(s.queued);
      s.pool = in.list<Transition>();
      for (std::size_t k = 0; k < s.queued.size(); ++k)
        if (s.queued[k].begin > (k + 1 < s.queued.size() ? s.queued[k + 1].begin : s.pool.size()))
          throw CheckpointError(in.path() + ": corrupted: a sleep set");
    });
  }

  // What storing up to n more states, none longer than `width` codes, at
  // levels first..last, may allocate while storage it replaces is still held:
  // the levels there that hold states, and new ones (at most n of them,
  // holding n states in all).
  [[nodiscard]] std::size_t growth_bytes(std::size_t n, std::size_t width, std::size_t first, std::size_t last) const {
    auto growth = table_.growth_bytes(n, width) + chunk_bytes(arrival_.size(), n, sizeof(Arrival)) + position_.growth_bytes(n);
    levels_.each_in(first, last, [&](std::size_t, const Level& s) { growth += doubling_bytes(&s.pool, n); });
    const std::vector<Transition>* no_pool = nullptr;
    const auto level = Levels<Level>::kNodeBytes + deque_bytes<Queued>(0);
    growth += deque_bytes<Queued>(n) + doubling_bytes(no_pool, n) + std::min(n, last + 1 - first) * level;
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

  // Where a sleep set that shrank ends, when it ends before the next one starts.
  static constexpr Transition kEnd{NodeId{}, ContextId{}};
  // An unexpanded state, by its position in its level: where its sleep set
  // starts in the level's pool (it ends where the next one starts, or at a
  // kEnd), and the behaviours reaching it, a PathCount in two halves: 12
  // bytes a state rather than 16.
  struct Queued {
    std::uint32_t begin, paths_low, paths_high;
    static Queued of(std::uint32_t begin, PathCount paths) { return {begin, static_cast<std::uint32_t>(paths), static_cast<std::uint32_t>(paths >> 32)}; }
    [[nodiscard]] PathCount paths() const { return PathCount{paths_high} << 32 | paths_low; }
    void set_paths(PathCount p) { paths_low = static_cast<std::uint32_t>(p), paths_high = static_cast<std::uint32_t>(p >> 32); }
  };
  static_assert(sizeof(Queued) == 12);
  // A level's unexpanded states, by position from `first` on (those before
  // it were taken), and their sleep sets one after the other.
  struct Level {
    std::deque<Queued> queued;
    std::vector<Transition> pool;
    std::uint32_t first = 0;
    [[nodiscard]] Queued& at(std::uint32_t k) { return queued[k - first]; }
    [[nodiscard]] const Queued& at(std::uint32_t k) const { return queued[k - first]; }
    // The sleep set at position k: [begin, end) of the pool.
    [[nodiscard]] std::pair<std::uint32_t, std::uint32_t> sleep_range(std::uint32_t k) const {
      const auto begin = at(k).begin;
      const auto limit = k + 1 - first < queued.size() ? at(k + 1).begin : static_cast<std::uint32_t>(pool.size());
      const auto end = std::find(pool.begin() + begin, pool.begin() + limit, kEnd) - pool.begin();
      return {begin, static_cast<std::uint32_t>(end)};
    }
    [[nodiscard]] std::size_t bytes() const {
      return Levels<Level>::kNodeBytes + deque_bytes<Queued>(queued.size()) + pool.capacity() * sizeof(Transition);
    }
  };

  // A state reached again before its expansion sleeps only on what every path
  // agrees on: its sleep set, pool's [begin, end), becomes the intersection
  // with `sleep`, in place from begin; returns where it ends.
  static std::uint32_t sleep_again(Transition* pool, std::uint32_t begin, std::uint32_t end, std::span<const Transition> sleep) {
    auto out = begin;
    auto other = sleep.begin();
    for (auto k = begin; k < end && other != sleep.end(); ++k) {
      while (other != sleep.end() && *other < pool[k]) ++other;
      if (other != sleep.end() && *other == pool[k]) pool[out++] = pool[k];
    }
    return out;
  }

  StateTable table_;
  Chunked<Arrival> arrival_;
  QueuePositions position_;
  Levels<Level> levels_;
};

}  // namespace tfsem::explorer
