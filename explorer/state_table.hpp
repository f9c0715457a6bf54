// The set of explored states: packed rows (codec.hpp) in an arena of fixed-size
// chunks, so rows never move and growing never copies them, found through an
// open-addressing table of (hash fragment, index) words. Rows are stored with
// the fewest bytes per code that every code so far fits in (1, 2 or 4); the
// first code that does not fit widens the whole arena once. Rows are stored
// with as many columns as the longest row so far, shorter rows padded with
// EMPTY; a longer row (a context met for the first time) widens the arena by
// half again. A row's hash ignores trailing EMPTY codes, so padding never
// changes it.
#pragma once

#include "explorer/codec.hpp"

#include <algorithm>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

namespace tfsem::explorer {

using StateIndex = std::uint32_t;

class StateTable {
 public:
  explicit StateTable(std::size_t width);

  [[nodiscard]] static std::uint64_t hash(std::span<const Code> row);
  // Returns the row's index and whether it was new; h is hash(row).
  std::pair<StateIndex, bool> insert(std::span<const Code> row, std::uint64_t h);
  // Copies row i to out (width() codes).
  void load(StateIndex i, Row& out) const;
  void load(StateIndex i, Code* out) const;
  [[nodiscard]] std::size_t width() const { return width_; }
  [[nodiscard]] std::size_t size() const { return size_; }
  [[nodiscard]] std::size_t bytes() const;
  // What inserting up to `rows` more rows, none longer than `width` codes nor
  // with a code above `largest`, may allocate while the storage it replaces
  // is still held: a slot array twice as large, an arena of wider rows.
  [[nodiscard]] std::size_t growth_bytes(std::size_t rows, std::size_t width, Code largest) const;

 private:
  static constexpr unsigned kChunkBits = 14;
  static constexpr std::size_t kChunkRows = std::size_t{1} << kChunkBits;

  // Whether n more rows fill the slots past 70%, so that the slot array doubles.
  [[nodiscard]] bool full(std::size_t n) const { return (size_ + n) * 10 > slots_.size() * 7; }
  // The arena's width for a row of `width` codes: at least half as wide again.
  [[nodiscard]] std::size_t wider(std::size_t width) const { return std::max(width, width_ + width_ / 2); }
  void grow();
  void relayout(std::size_t width, unsigned code_bytes);  // every row, with more columns or bytes per code
  [[nodiscard]] std::uint8_t* at(StateIndex i) const {
    return chunks_[i >> kChunkBits].get() + std::size_t{i & (kChunkRows - 1)} * width_ * code_bytes_;
  }
  [[nodiscard]] bool equal(StateIndex i, std::span<const Code> row) const;

  std::size_t width_, size_ = 0;
  unsigned code_bytes_ = 1;
  std::vector<std::unique_ptr<std::uint8_t[]>> chunks_;
  // 0: free; otherwise the hash's high 32 bits, then index + 1. The slot is
  // found from the same high bits, so growing needs no row.
  std::vector<std::uint64_t> slots_;
};

}  // namespace tfsem::explorer
