// The visited states of a search, shared by explore.cpp and distributed.cpp:
// the state table (state_table.hpp), for each stored state how it was first
// reached (its Arrival, a type of the search's own), and the unexpanded
// states by level (firings from the initial state), each with the number of
// explored behaviours reaching it and its sleep set. Arrivals live in
// fixed-size chunks, so growing never holds the old storage and the new at
// once. A path count and a sleep set are kept while their state is
// unexpanded, found by its position in its level (no allocation per state),
// and go with the level: every arrival at a state comes from an earlier
// level, so both are final when it is expanded. A level's lists are deques:
// a level of tens of millions of states grows block by block, never holding
// a copy of itself or twice its size, as a vector's doubling would at the
// peak of a large search.
#pragma once

#include "explorer/checkpoint_file.hpp"
#include "explorer/levels.hpp"
#include "explorer/result.hpp"
#include "explorer/state_table.hpp"
#include "support/append_only.hpp"

#include <algorithm>
#include <deque>
#include <span>
#include <type_traits>
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

template <class Arrival>
class Visited {
 public:
  // Room for max_states states (at most 2^32).
  explicit Visited(std::size_t width, std::size_t max_states = kMaxStates)
      : table_(width), arrival_(chunks_for(max_states)), position_(chunks_for(max_states)) {}

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
      position_.push_back(0);
    }
    return {i, fresh};
  }
  // Queues stored state i, unexpanded, at its level with its sleep set and
  // the behaviours reaching it.
  void queue(StateIndex i, std::size_t level, std::span<const Transition> sleep, PathCount paths) {
    auto& s = levels_[level];
    position_[i] = static_cast<std::uint32_t>(s.states.size());
    s.states.push_back(i);
    if (s.pool.size() + sleep.size() > UINT32_MAX) throw std::length_error("sleep sets: 2^32 transitions in one level");
    s.queued.push_back({static_cast<std::uint32_t>(s.pool.size()), static_cast<std::uint32_t>(s.pool.size() + sleep.size()), paths});
    s.pool.insert(s.pool.end(), sleep.begin(), sleep.end());
  }
  // Records another arrival at known state i, not yet expanded, as add does.
  void again(StateIndex i, std::size_t level, std::span<const Transition> sleep, PathCount paths) {
    auto& s = *levels_.find(level);
    auto& q = s.queued[position_[i]];
    q.paths = saturating_add(q.paths, paths);
    sleep_again(s.pool.data(), q, sleep);
  }

  // The sleep set of state i of level `level`, about to be expanded (nothing
  // arrives at it any more); valid until drop_level(level).
  [[nodiscard]] std::span<const Transition> sleep(std::size_t level, StateIndex i) const {
    const auto& s = *levels_.find(level);
    const auto& q = s.queued[position_[i]];
    return {s.pool.data() + q.begin, s.pool.data() + q.end};
  }
  // The behaviours reaching state i of level `level`, as sleep() is found.
  [[nodiscard]] PathCount paths(std::size_t level, StateIndex i) const { return levels_.find(level)->queued[position_[i]].paths; }
  // Lets go of a level that has been expanded: its list, path counts and sleep sets.
  void drop_level(std::size_t level) { levels_.erase(level); }

  [[nodiscard]] const StateTable& table() const { return table_; }
  [[nodiscard]] std::size_t size() const { return table_.size(); }
  [[nodiscard]] const Arrival& arrival(StateIndex i) const { return arrival_[i]; }
  // The unexpanded states of a level, in the order they were stored (null:
  // none); a level lives until drop_level.
  [[nodiscard]] const std::deque<StateIndex>* level(std::size_t l) const {
    const auto* s = levels_.find(l);
    return s != nullptr ? &s->states : nullptr;
  }
  // The first level at or after l with unexpanded states; kNoLevel when none has.
  [[nodiscard]] std::size_t next_level(std::size_t l) const { return levels_.next(l); }

  [[nodiscard]] std::size_t bytes() const {
    std::size_t queued = 0;
    levels_.each([&](std::size_t, const Level& l) { queued += l.bytes(); });
    return table_.bytes() + arrival_.bytes() + position_.bytes() + queued;
  }

  // The store as it is (checkpoint.hpp); restore() into an empty one.
  void save(CheckpointOut& out) const {
    table_.save(out);
    const auto chunks = [&](const auto& a) { a.each_chunk([&](const auto* p, std::size_t n) { out.raw(p, n * sizeof *p); }); };
    chunks(arrival_), chunks(position_);
    out.pod<std::uint64_t>(levels_.size());
    levels_.each([&](std::size_t l, const Level& s) {
      out.pod<std::uint64_t>(l);
      deque_out(out, s.states);
      deque_out(out, s.queued);
      out.list(s.pool);
    });
  }
  void restore(CheckpointIn& in) {
    table_.restore(in);
    const auto chunks = [&](auto& a) {
      for (std::size_t i = 0; i < table_.size(); ++i) a.push_back(in.template pod<std::remove_cvref_t<decltype(a[0])>>());
    };
    chunks(arrival_), chunks(position_);
    read_levels(in, 32, [&](std::uint64_t l) {  // a number and three lists
      auto& s = levels_[l];
      deque_in(in, s.states);
      deque_in(in, s.queued);
      s.pool = in.list<Transition>();
      for (const auto i : s.states)
        if (i >= table_.size() || position_[i] >= s.queued.size())
          throw CheckpointError(in.path() + ": corrupted: a level of unexpanded states");
      for (const auto& q : s.queued)
        if (q.begin > q.end || q.end > s.pool.size()) throw CheckpointError(in.path() + ": corrupted: a sleep set");
    });
  }

  // What storing up to n more states, none longer than `width` codes, at
  // levels first..last, may allocate while storage it replaces is still held:
  // the levels there that hold states, and new ones (at most n of them,
  // holding n states in all).
  [[nodiscard]] std::size_t growth_bytes(std::size_t n, std::size_t width, std::size_t first, std::size_t last) const {
    auto growth = table_.growth_bytes(n, width) + chunk_bytes(arrival_.size(), n, sizeof(Arrival)) +
                  chunk_bytes(position_.size(), n, sizeof(std::uint32_t));
    levels_.each_in(first, last, [&](std::size_t, const Level& s) {
      growth += doubling_bytes(&s.pool, n);
    });
    const std::vector<Transition>* no_pool = nullptr;
    const auto level = Levels<Level>::kNodeBytes + deque_bytes<StateIndex>(0) + deque_bytes<Queued>(0);
    growth += deque_bytes<StateIndex>(n) + deque_bytes<Queued>(n) + doubling_bytes(no_pool, n) + std::min(n, last + 1 - first) * level;
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

  // An unexpanded state, by its position in its level: its sleep set, [begin,
  // end) of the level's pool, and the behaviours reaching it.
  struct Queued {
    std::uint32_t begin, end;
    PathCount paths;
  };
  // A level's unexpanded states, in the order they were queued.
  struct Level {
    std::deque<StateIndex> states;
    std::deque<Queued> queued;
    std::vector<Transition> pool;
    [[nodiscard]] std::size_t bytes() const {
      return Levels<Level>::kNodeBytes + deque_bytes<StateIndex>(states.size()) + deque_bytes<Queued>(queued.size()) +
             pool.capacity() * sizeof(Transition);
    }
  };

  // A deque as CheckpointOut::list writes a list: its size, then its
  // elements; and read back, element by element, never held twice.
  template <class T>
  static void deque_out(CheckpointOut& out, const std::deque<T>& d) {
    out.pod<std::uint64_t>(d.size());
    for (const auto& v : d) out.pod(v);
  }
  template <class T>
  static void deque_in(CheckpointIn& in, std::deque<T>& d) {
    for (auto n = in.size(UINT32_MAX, sizeof(T)); n > 0; --n) d.push_back(in.pod<T>());
  }

  // A state reached again before its expansion sleeps only on what every path
  // agrees on: its sleep set (q's range of pool) becomes the intersection
  // with `sleep`, in place.
  static void sleep_again(Transition* pool, Queued& q, std::span<const Transition> sleep) {
    auto out = q.begin;
    auto other = sleep.begin();
    for (auto k = q.begin; k < q.end && other != sleep.end(); ++k) {
      while (other != sleep.end() && *other < pool[k]) ++other;
      if (other != sleep.end() && *other == pool[k]) pool[out++] = pool[k];
    }
    q.end = out;
  }

  StateTable table_;
  Chunked<Arrival> arrival_;
  Chunked<std::uint32_t> position_;  // by state: its position in its level
  Levels<Level> levels_;
};

}  // namespace tfsem::explorer
