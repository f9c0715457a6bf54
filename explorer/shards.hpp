// The visited states of explore.cpp's search, split by hash into shards
// (issue 17's parallel merge): each shard is a Visited store of its own, so
// threads merge into different shards at once, without locks. A state's
// index tells its shard (the low bits) and its index there.
//
// Every arrival carries its position in the search's sequence of arrivals,
// the order one thread would merge them in. A shard receives its arrivals in
// that order, so the first arrival at a state (its parent) is the one a single
// store would keep; and a level is handed out in the order its states were
// first reached, merged from the shards by position. So what the search
// reports does not depend on the number of shards, nor of threads.
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
    for (unsigned s = 0; s < shards; ++s) shards_.push_back(std::make_unique<Shard>(width, kMaxStates >> shift_));
  }

  [[nodiscard]] unsigned shards() const { return static_cast<unsigned>(shards_.size()); }
  // The shard a row with this hash goes to.
  [[nodiscard]] unsigned shard_of(std::uint64_t hash) const { return static_cast<unsigned>(hash & (shards_.size() - 1)); }

  // Visited::add in the shard the hash picks, `order` the arrival's position
  // in the search's sequence of arrivals. Threads may add to different shards at once.
  std::pair<StateIndex, bool> add(std::span<const Code> row, std::uint64_t hash, const Arrival& how, std::size_t level,
                                  std::span<const Transition> sleep, PathCount paths, std::uint64_t order) {
    const auto s = shard_of(hash);
    auto& shard = *shards_[s];
    const auto [local, fresh] = shard.visited.add(row, hash, how, level, sleep, paths);
    if (local >= (kMaxStates >> shift_) - 1) throw std::length_error("state table: 2^32 states");
    if (fresh) {
      if (shard.orders.size() <= level) shard.orders.resize(level + 1);
      shard.orders[level].push_back(order);
    }
    return {local << shift_ | s, fresh};
  }

  // Visited::again in the shard holding i.
  void again(StateIndex i, std::size_t level, std::span<const Transition> sleep, PathCount paths) {
    shard(i).again(local(i), level, sleep, paths);
  }

  // StateTable::prefetch_slot and prefetch_row, in the shard the hash picks.
  void prefetch_slot(std::uint64_t hash) const { shards_[shard_of(hash)]->visited.table().prefetch_slot(hash); }
  void prefetch_row(std::uint64_t hash) const { shards_[shard_of(hash)]->visited.table().prefetch_row(hash); }

  // Level `level`'s unexpanded states, in the order they were first reached, taken out.
  std::vector<StateIndex> take_level(std::size_t level) {
    std::vector<StateIndex> out;
    std::size_t total = 0;
    for (const auto& shard : shards_)
      if (level < shard->orders.size()) total += shard->orders[level].size();
    out.reserve(total);
    // Each shard's next state, as (order, its position in the shard's level,
    // the end of that level): the least order goes next. A scan of at most 64
    // shards (most often 2 to 8) costs less than a heap's pop and push.
    struct Head {
      std::uint64_t order;
      std::size_t at, end;
    };
    static constexpr std::uint64_t kDone = UINT64_MAX;  // no order reaches it: at most 2^32 states
    std::vector<Head> heads(shards_.size(), {kDone, 0, 0});
    for (unsigned s = 0; s < shards_.size(); ++s)
      if (level < shards_[s]->orders.size() && !shards_[s]->orders[level].empty())
        heads[s] = {shards_[s]->orders[level][0], 0, shards_[s]->orders[level].size()};
    for (std::size_t n = 0; n < total; ++n) {
      unsigned s = 0;
      for (unsigned t = 1; t < heads.size(); ++t)
        if (heads[t].order < heads[s].order) s = t;
      auto& h = heads[s];
      auto& shard = *shards_[s];
      out.push_back(shard.visited.levels()[level][h.at] << shift_ | s);
      h.order = ++h.at < h.end ? shard.orders[level][h.at] : kDone;
    }
    for (auto& shard : shards_)
      if (level < shard->orders.size()) {
        std::vector<std::uint64_t>().swap(shard->orders[level]);
        std::vector<StateIndex>().swap(shard->visited.levels()[level]);
      }
    return out;
  }
  // Whether some level from `level` on may hold unexpanded states.
  [[nodiscard]] bool levels_from(std::size_t level) const {
    for (const auto& shard : shards_)
      if (level < shard->orders.size()) return true;
    return false;
  }

  // Visited::sleep and drop_sleep, in the shard holding i, or in every shard.
  [[nodiscard]] std::span<const Transition> sleep(std::size_t level, StateIndex i) const { return shard(i).sleep(level, local(i)); }
  void drop_sleep(std::size_t level) {
    for (auto& s : shards_) s->visited.drop_sleep(level);
  }
  [[nodiscard]] const Arrival& arrival(StateIndex i) const { return shard(i).arrival(local(i)); }
  [[nodiscard]] PathCount paths(StateIndex i) const { return shard(i).paths(local(i)); }
  // State i's row into out, `width` codes (at least width()), padded with EMPTY.
  void load(StateIndex i, Code* out, std::size_t width) const { shard(i).table().load(local(i), out, width); }
  void load(StateIndex i, Row& out) const {
    out.resize(width());
    load(i, out.data(), out.size());
  }

  // The widest row stored.
  [[nodiscard]] std::size_t width() const {
    std::size_t w = 0;
    for (const auto& s : shards_) w = std::max(w, s->visited.table().width());
    return w;
  }
  [[nodiscard]] std::size_t size() const {
    std::size_t n = 0;
    for (const auto& s : shards_) n += s->visited.size();
    return n;
  }
  [[nodiscard]] std::size_t bytes() const {
    std::size_t n = 0;
    for (const auto& s : shards_) {
      n += s->visited.bytes();
      for (const auto& l : s->orders) n += l.capacity() * sizeof(std::uint64_t);
    }
    return n;
  }
  // Visited::growth_bytes, shard s receiving arrivals[s] of the arrivals.
  [[nodiscard]] std::size_t growth_bytes(std::span<const std::size_t> arrivals, std::size_t width, std::size_t first,
                                         std::size_t last) const {
    std::size_t n = 0;
    for (unsigned s = 0; s < shards_.size(); ++s) {
      const auto& shard = *shards_[s];
      n += shard.visited.growth_bytes(arrivals[s], width, first, last);
      for (auto l = first; l <= last && l < shard.orders.size(); ++l)
        if (shard.orders[l].size() + arrivals[s] > shard.orders[l].capacity())
          n += (shard.orders[l].size() + arrivals[s]) * sizeof(std::uint64_t);
    }
    return n;
  }

 private:
  static constexpr std::size_t kMaxStates = std::size_t{1} << 32;
  struct Shard {
    Shard(std::size_t width, std::size_t max_states) : visited(width, max_states) {}
    Visited<Arrival> visited;
    std::vector<std::vector<std::uint64_t>> orders;  // by level: the order of each of visited.levels()'s states
  };
  [[nodiscard]] unsigned shard_holding(StateIndex i) const { return static_cast<unsigned>(i & (shards_.size() - 1)); }
  [[nodiscard]] const Visited<Arrival>& shard(StateIndex i) const { return shards_[shard_holding(i)]->visited; }
  Visited<Arrival>& shard(StateIndex i) { return shards_[shard_holding(i)]->visited; }
  [[nodiscard]] StateIndex local(StateIndex i) const { return i >> shift_; }

  unsigned shift_;
  std::vector<std::unique_ptr<Shard>> shards_;
};

}  // namespace tfsem::explorer
