// A shard's memo of the arrivals of the chunk being merged (explore.cpp).
// Most arrivals at a state already stored come from siblings expanded in the
// same chunk (the two orders of two independent firings reach one state), so
// an arrival whose row equals an earlier arrival's of this chunk is recorded
// at the state that one reached, without packing the row and probing the
// state table. Direct-mapped: an entry overwritten by another row only costs
// the table lookup it would have saved. Rows are compared exactly, so the
// memo never changes an answer.
#pragma once

#include "explorer/codec.hpp"
#include "explorer/state_table.hpp"
#include "support/prefetch.hpp"

#include <optional>
#include <span>
#include <vector>

namespace tfsem::explorer {

class RecentArrivals {
 public:
  // Forgets every entry; the rows remembered so far may go.
  void next_chunk() { ++chunk_; }

  // The state an earlier arrival of this chunk with this row reached, if remembered.
  [[nodiscard]] std::optional<StateIndex> find(std::uint64_t hash, std::span<const Code> row) const {
    const auto& e = entries_[slot(hash)];
    if (e.chunk != chunk_ || e.hash != hash || !StateTable::same_row({e.row, e.size}, row)) return std::nullopt;
    return e.state;
  }
  // Brings into the cache the entry an arrival with this hash is looked for in.
  void prefetch(std::uint64_t hash) const { tfsem::prefetch(&entries_[slot(hash)]); }
  // Remembers that the arrival with this row reached `state`; the row must
  // stay where it is until next_chunk().
  void remember(std::uint64_t hash, std::span<const Code> row, StateIndex state) {
    entries_[slot(hash)] = {hash, row.data(), static_cast<std::uint32_t>(row.size()), chunk_, state};
  }

  [[nodiscard]] static std::size_t bytes() { return kEntries * sizeof(Entry); }

 private:
  // A chunk's shard receives at most about 16,000 arrivals (4,096 states).
  static constexpr std::size_t kEntries = std::size_t{1} << 15;
  struct Entry {
    std::uint64_t hash = 0;
    const Code* row = nullptr;
    std::uint32_t size = 0, chunk = 0;
    StateIndex state = 0;
  };
  // Bits the shard (low) and the table's index (high 32) do not use.
  [[nodiscard]] static std::size_t slot(std::uint64_t hash) { return (hash >> 8) & (kEntries - 1); }

  std::vector<Entry> entries_ = std::vector<Entry>(kEntries);
  std::uint32_t chunk_ = 1;  // entries of other chunks are forgotten
};

}  // namespace tfsem::explorer
