// The set of explored states, stored exactly and compactly (in the spirit of
// SPIN's COLLAPSE): each column has its own dictionary of the codes met in it
// (codec.hpp), and a row stores, for each column, the code's index in that
// dictionary in as few bits as the dictionary needs (0 bits for a column that
// has only ever held EMPTY). Rows are bit strings in an arena of fixed-size
// chunks, so rows never move, found through an open-addressing table of (hash
// fragment, index) words. A dictionary that outgrows its bits starts a new
// layout; only the chunk being filled is rewritten in it, and every chunk
// remembers its layout. Rows are as wide as the longest row so far; a column
// a layout lacks reads as EMPTY, so a new context's columns cost nothing until
// they hold something. A row's hash ignores trailing EMPTY codes, so padding
// never changes it.
#pragma once

#include "explorer/codec.hpp"
#include "support/prefetch.hpp"

#include <algorithm>
#include <cstdint>
#include <memory>
#include <span>
#include <unordered_map>
#include <utility>
#include <vector>

namespace tfsem::explorer {

using StateIndex = std::uint32_t;

class StateTable {
 public:
  explicit StateTable(std::size_t width);

  [[nodiscard]] static std::uint64_t hash(std::span<const Code> row);
  // Whether two rows are one state: equal once padded with EMPTY to one width
  // (as hash ignores trailing EMPTY codes).
  [[nodiscard]] static bool same_row(std::span<const Code> a, std::span<const Code> b) {
    if (a.size() > b.size()) std::swap(a, b);
    return std::equal(a.begin(), a.end(), b.begin()) &&
           std::all_of(b.begin() + static_cast<std::ptrdiff_t>(a.size()), b.end(), [](Code c) { return c == kEmptyCode; });
  }
  // Returns the row's index and whether it was new; h is hash(row).
  std::pair<StateIndex, bool> insert(std::span<const Code> row, std::uint64_t h);
  // Brings into the cache the index slot where a row with hash h is looked
  // for; then (once that slot is there) the stored row it names, if its fragment matches.
  void prefetch_slot(std::uint64_t h) const { tfsem::prefetch(&slots_[(h >> 32) & (slots_.size() - 1)]); }
  void prefetch_row(std::uint64_t h) const {
    const auto slot = slots_[(h >> 32) & (slots_.size() - 1)];
    if (slot != 0 && slot >> 32 == h >> 32) tfsem::prefetch(at(stored_at(slot)));
  }
  // Brings stored row i into the cache, ahead of a load.
  void prefetch_stored(StateIndex i) const {
    tfsem::prefetch_lines(std::span<const std::uint8_t>(at(i), layouts_[layout_of(i)].row_bytes));
  }
  // Copies row i to out (width() codes).
  void load(StateIndex i, Row& out) const;
  // Copies row i to out, `width` codes, padded with EMPTY: at least the
  // row's own (the table's width when it was stored).
  void load(StateIndex i, Code* out, std::size_t width) const;
  [[nodiscard]] std::size_t width() const { return width_; }
  [[nodiscard]] std::size_t size() const { return size_; }
  [[nodiscard]] std::size_t bytes() const;
  // What inserting up to `rows` more rows, none longer than `width` codes,
  // may allocate while the storage it replaces is still held: a slot array
  // twice as large, the chunk being filled rewritten in a wider layout.
  [[nodiscard]] std::size_t growth_bytes(std::size_t rows, std::size_t width) const;

 private:
  static constexpr unsigned kChunkBits = 12;
  static constexpr std::size_t kChunkRows = std::size_t{1} << kChunkBits;
  // Codes below this are looked up in a column's array, the others in a map.
  static constexpr Code kDirectCodes = 4096;

  // Each column's bits, one after the other; a row is ceil(sum / 8) bytes.
  struct Layout {
    std::vector<std::uint8_t> bits;    // by column; columns past the end hold EMPTY
    std::vector<std::uint32_t> live;   // the columns with bits, in order,
    std::vector<std::uint32_t> blank;  // and those without
    std::size_t row_bytes = 0;
  };
  struct Column {
    std::vector<Code> codes;            // the dictionary: index -> code
    std::vector<std::uint32_t> direct;  // code -> index + 1 (0: not met), for codes below kDirectCodes
  };
  struct Chunk {
    std::unique_ptr<std::uint8_t[]> bytes;
    std::uint32_t layout;
  };

  // Whether n more rows fill the slots past 70%, so that the slot array doubles.
  [[nodiscard]] bool full(std::size_t n) const { return (size_ + n) * 10 > slots_.size() * 7; }
  void grow();
  // Code c's index in column col's dictionary, whose direct lookup is
  // `direct` (direct_size entries); kNone when not met.
  [[nodiscard]] std::uint32_t index_in(const std::uint32_t* direct, std::size_t direct_size, std::size_t col, Code c) const {
    if (c < direct_size) return direct[c] - 1;  // 0 - 1 is kNone
    return c < kDirectCodes ? kNone : large_index_of(col, c);
  }
  [[nodiscard]] std::uint32_t index_of(std::size_t col, Code c) const {
    const auto& d = columns_[col].direct;
    return index_in(d.data(), d.size(), col, c);
  }
  [[nodiscard]] std::uint32_t large_index_of(std::size_t col, Code c) const;
  std::uint32_t add_code(std::size_t col, Code c);
  // The row in the current layout, in packed_; false when a code is new to its column.
  bool pack(std::span<const Code> row);
  // What pack() and unpack() read for each column with bits in the current
  // layout, in order: its dictionary (codes and direct lookup) and its bits,
  // in one array. Stale after a code is added (a dictionary may have moved),
  // a layout has started or the table has widened; pack() rebuilds it, and
  // unpack() reads it only while it is current.
  struct PlanColumn {
    const std::uint32_t* direct;
    const Code* codes;
    std::uint32_t direct_size, col, bits, mask;
  };
  void plan();
  // A row of layout l from in, into `width` codes.
  void unpack(const Layout& l, const std::uint8_t* in, Code* row, std::size_t width) const;
  void new_layout();  // the current dictionaries' bits; rewrites the chunk being filled
  [[nodiscard]] std::uint8_t* at(StateIndex i) const {
    const auto& c = chunks_[i >> kChunkBits];
    return c.bytes.get() + std::size_t{i & (kChunkRows - 1)} * layouts_[c.layout].row_bytes;
  }
  [[nodiscard]] std::uint32_t layout_of(StateIndex i) const { return chunks_[i >> kChunkBits].layout; }
  [[nodiscard]] bool equal(StateIndex i, std::span<const Code> row);
  [[nodiscard]] static std::size_t chunk_bytes(const Layout& l);
  std::unique_ptr<std::uint8_t[]> allocate(const Layout& l);

  static constexpr std::uint32_t kNone = UINT32_MAX;
  std::size_t width_, size_ = 0;
  std::vector<Column> columns_;
  std::unordered_map<std::uint64_t, std::uint32_t> large_codes_;  // (column, code) -> index, for codes from kDirectCodes
  std::vector<Layout> layouts_;                                    // the last is current
  std::vector<Chunk> chunks_;
  std::size_t held_bytes_ = 0;        // chunks, dictionaries and layouts, counted as they grow
  std::vector<PlanColumn> plan_;
  std::size_t plan_width_ = 0;  // one past the last column with bits
  bool plan_stale_ = true;
  std::vector<std::uint8_t> packed_;  // the row being inserted, packed
  Row padded_;                        // a row shorter than plan_width_, padded with EMPTY
  Row scratch_;                       // a stored row of an older layout, unpacked
  // 0: free; otherwise the hash's high 32 bits, then index + 1 in kIndex. The
  // slot is found from the same high bits, so growing needs no row.
  std::vector<std::uint64_t> slots_;
  static constexpr std::uint64_t kIndex = 0xffffffff;
  [[nodiscard]] static StateIndex stored_at(std::uint64_t slot) { return static_cast<StateIndex>((slot & kIndex) - 1); }
};

}  // namespace tfsem::explorer
