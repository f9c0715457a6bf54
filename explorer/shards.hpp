// The visited states of explore.cpp's search, split by hash into shards
// for a parallel merge: each shard is a Visited store of its own, so
// threads merge into different shards at once, without locks. A state's
// index tells its shard (the low bits) and its index there.
//
// A shard receives its arrivals in the order one thread would merge them
// in, so the first arrival at a state (its parent) is the one a single store
// would keep. The search queues the new states in that order too (when it
// reports a chunk), so what it reports does not depend on the number of
// shards, nor of threads. Each shard keeps its own levels only to find its
// states' path counts and sleep sets.
#pragma once

#include "explorer/visited.hpp"

#include <bit>
#include <stdexcept>

namespace tfsem::explorer {

template <class Arrival>
class ShardedVisited {
 public:
  // `shards` a power of two, at most 64.
  ShardedVisited(std::size_t width, unsigned shards) : shift_(static_cast<unsigned>(std::countr_zero(shards))) {
    for (unsigned s = 0; s < shards; ++s) shards_.push_back(std::make_unique<Visited<Arrival>>(width, kMaxStates >> shift_));
  }

  [[nodiscard]] unsigned shards() const { return static_cast<unsigned>(shards_.size()); }
  // The shard a row with this hash goes to.
  [[nodiscard]] unsigned shard_of(std::uint64_t hash) const { return static_cast<unsigned>(hash & (shards_.size() - 1)); }

  // Visited::add in the shard the hash picks. Threads may add to different shards at once.
  std::pair<StateIndex, bool> add(std::span<const Code> row, std::uint64_t hash, const Arrival& how, std::size_t level,
                                  std::span<const Transition> sleep, PathCount paths) {
    const auto s = shard_of(hash);
    const auto [local, fresh] = shards_[s]->add(row, hash, how, level, sleep, paths);
    if (local >= (kMaxStates >> shift_) - 1) throw std::length_error("state table: 2^32 states");
    return {local << shift_ | s, fresh};
  }

  // Visited::again in the shard holding i.
  void again(StateIndex i, std::size_t level, std::span<const Transition> sleep, PathCount paths) {
    shard(i).again(local(i), level, sleep, paths);
  }

  // StateTable::prefetch_slot and prefetch_row, in the shard the hash picks.
  void prefetch_slot(std::uint64_t hash) const { shards_[shard_of(hash)]->table().prefetch_slot(hash); }
  void prefetch_row(std::uint64_t hash) const { shards_[shard_of(hash)]->table().prefetch_row(hash); }

  // Visited::sleep, paths, drop_level, drop_level_index and taken, in the shard holding i, or in every shard.
  [[nodiscard]] std::span<const Transition> sleep(std::size_t level, StateIndex i) const { return shard(i).sleep(level, local(i)); }
  [[nodiscard]] PathCount paths(std::size_t level, StateIndex i) const { return shard(i).paths(level, local(i)); }
  void drop_level(std::size_t level) {
    for (auto& s : shards_) s->drop_level(level);
  }
  void drop_level_index(std::size_t level) {
    for (auto& s : shards_) s->drop_level_index(level);
  }
  // Visited::taken, in each shard, for the last of `states` (in the order they were queued) it holds.
  void taken(std::size_t level, std::span<const StateIndex> states) {
    const auto all = shards_.size() == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << shards_.size()) - 1;
    std::uint64_t seen = 0;
    for (auto k = states.size(); k-- > 0 && seen != all;) {
      const auto s = shard_holding(states[k]);
      if ((seen >> s & 1) != 0) continue;
      seen |= std::uint64_t{1} << s;
      shards_[s]->taken(level, local(states[k]));
    }
  }
  // Whether i is a stored state's index, and Visited::queued in its shard.
  [[nodiscard]] bool holds(StateIndex i) const { return local(i) < shard(i).size(); }
  [[nodiscard]] bool queued(std::size_t level, StateIndex i) const { return holds(i) && shard(i).queued(level, local(i)); }
  [[nodiscard]] const Arrival& arrival(StateIndex i) const { return shard(i).arrival(local(i)); }
  // State i's row into out, `width` codes (at least width()), padded with EMPTY.
  void load(StateIndex i, Code* out, std::size_t width) const { shard(i).table().load(local(i), out, width); }
  void prefetch_stored(StateIndex i) const { shard(i).table().prefetch_stored(local(i)); }
  void load(StateIndex i, Row& out) const {
    out.resize(width());
    load(i, out.data(), out.size());
  }

  // The widest row stored.
  [[nodiscard]] std::size_t width() const {
    std::size_t w = 0;
    for (const auto& s : shards_) w = std::max(w, s->table().width());
    return w;
  }
  [[nodiscard]] std::size_t size() const {
    std::size_t n = 0;
    for (const auto& s : shards_) n += s->size();
    return n;
  }
  [[nodiscard]] std::size_t bytes() const {
    std::size_t n = 0;
    for (const auto& s : shards_) n += s->bytes();
    return n;
  }
  // Every shard's Visited::save and restore, in order; restoring into as many shards.
  void save(CheckpointOut& out) const {
    for (const auto& s : shards_) s->save(out);
  }
  void restore(CheckpointIn& in) {
    for (auto& s : shards_) s->restore(in);
  }

  // Visited::growth_bytes, shard s receiving arrivals[s] of the arrivals.
  [[nodiscard]] std::size_t growth_bytes(std::span<const std::size_t> arrivals, std::size_t width, std::size_t first,
                                         std::size_t last) const {
    std::size_t n = 0;
    for (unsigned s = 0; s < shards_.size(); ++s) n += shards_[s]->growth_bytes(arrivals[s], width, first, last);
    return n;
  }

 private:
  static constexpr std::size_t kMaxStates = std::size_t{1} << 32;
  [[nodiscard]] unsigned shard_holding(StateIndex i) const { return static_cast<unsigned>(i & (shards_.size() - 1)); }
  [[nodiscard]] const Visited<Arrival>& shard(StateIndex i) const { return *shards_[shard_holding(i)]; }
  Visited<Arrival>& shard(StateIndex i) { return *shards_[shard_holding(i)]; }
  [[nodiscard]] StateIndex local(StateIndex i) const { return i >> shift_; }

  unsigned shift_;
  std::vector<std::unique_ptr<Visited<Arrival>>> shards_;
};

}  // namespace tfsem::explorer
