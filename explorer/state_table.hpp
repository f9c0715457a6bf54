// The set of explored states, stored exactly and compactly (in the spirit of
// SPIN's COLLAPSE): each column has its own dictionary of the codes met in it
// (codec.hpp), and a row stores, for each column, the code's index in that
// dictionary in as few bits as the dictionary needs (0 bits for a column that
// has only ever held EMPTY). Rows are bit strings in an arena of fixed-size
// chunks, found through an index of (hash fragment, index) words in 256
// parts (by the fragment's top byte), each an open-addressing table that
// grows on its own, by half: growing holds a part twice, never the whole
// index. A row is a sequence of fields, each some bits of one column's
// index; a dictionary that outgrows its column's bits gets a field for the
// bits it lacks, appended at the end, so a row stored before reads 0 there
// (its zero padding) and stays a row of the grown layout: growing rewrites
// nothing. A chunk holds rows at a fixed stride; when the rows outgrow it,
// only the chunk being filled is copied, to a stride with headroom. A new
// chunk starts a compact layout (one field per column, in column order) when
// the current one has split columns; every chunk remembers its layout. Rows
// are as wide as the longest row so far; a column a layout lacks reads as
// EMPTY, so a new context's columns cost nothing until they hold something.
// A row's hash ignores trailing EMPTY codes, so padding never changes it.
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

class CheckpointOut;
class CheckpointIn;

using StateIndex = std::uint32_t;

class StateTable {
 public:
  explicit StateTable(std::size_t width);

  [[nodiscard]] static std::uint64_t hash(std::span<const Code> row);
  // Hash h of a row met `level` firings from the initial state, for a search
  // that stores it at its level: the top five bits (the index's part, with
  // the next three) become the level's, modulo 32. Every path to a state
  // fires the same transitions, so a state is always met at one level, and
  // its level's states fill 8 of the 256 parts: an arrival reads the index
  // of its own level, not the whole search's (docs/explorer.md, "Where the
  // time goes"). The bits below, which pick a shard and the probe's start,
  // are the row's.
  [[nodiscard]] static std::uint64_t at_level(std::uint64_t h, std::size_t level) {
    return (h & ((std::uint64_t{1} << kLevelShift) - 1)) | (std::uint64_t{level % kLevelClasses} << kLevelShift);
  }
  // Whether rows stored at levels a and b share the index's parts.
  [[nodiscard]] static bool same_parts(std::size_t a, std::size_t b) { return a % kLevelClasses == b % kLevelClasses; }
  // Empties the index's parts that hold the rows stored at `level`, and at
  // every level that shares them (same_parts): those rows stay stored, and
  // load() reads them, but insert() no longer finds them. For a search that
  // stores each row at its level, once nothing can arrive at these levels.
  void let_go_level(std::size_t level);
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
  void prefetch_slot(std::uint64_t h) const { tfsem::prefetch(&home_slot(h)); }
  void prefetch_row(std::uint64_t h) const {
    const auto slot = home_slot(h);
    if (slot != 0 && slot >> 32 == h >> 32) tfsem::prefetch(at(stored_at(slot)));
  }
  // Brings stored row i into the cache, ahead of a load.
  void prefetch_stored(StateIndex i) const {
    tfsem::prefetch_lines(std::span<const std::uint8_t>(at(i), chunks_[i >> kChunkBits].stride));
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
  // may allocate while the storage it replaces is still held: the parts of
  // the index that grow, the chunk being filled copied to a wider stride.
  [[nodiscard]] std::size_t growth_bytes(std::size_t rows, std::size_t width) const;

  // The table as it is (checkpoint.hpp): dictionaries, layouts, rows and
  // slots, so that a restored table holds every row at the same index.
  void save(CheckpointOut& out) const;
  // Into a table that holds no row yet.
  void restore(CheckpointIn& in);

 private:
  static constexpr unsigned kChunkBits = 12;
  static constexpr std::size_t kChunkRows = std::size_t{1} << kChunkBits;
  // Codes below this are looked up in a column's array, the others in a map.
  static constexpr Code kDirectCodes = 4096;

  // Some bits of a column's index: bits [shift, shift + bits) of it.
  struct Field {
    std::uint32_t col;
    std::uint8_t bits, shift;
  };
  // The fields one after the other; a row is ceil(row_bits / 8) bytes.
  struct Layout {
    std::vector<std::uint8_t> bits;    // by column, the sum of its fields'; columns past the end hold EMPTY
    std::vector<std::uint32_t> live;   // the columns with bits
    std::vector<Field> fields;         // in row order
    std::size_t row_bits = 0;
    [[nodiscard]] std::size_t row_bytes() const { return (row_bits + 7) / 8; }
    // Whether some column has several fields (its index is put together from them).
    [[nodiscard]] bool split() const { return fields.size() != live.size(); }
  };
  struct Column {
    std::vector<Code> codes;            // the dictionary: index -> code
    std::vector<std::uint32_t> direct;  // code -> index + 1 (0: not met), for codes below kDirectCodes
  };
  struct Chunk {
    std::unique_ptr<std::uint8_t[]> bytes;
    std::uint32_t layout;
    std::uint32_t stride;  // bytes per row: at least its rows' own, the rest zeros
  };

  // A part of the index: 0 in a free slot; otherwise the hash's high 32
  // bits (its fragment), then index + 1 in kIndex. The slot is found from
  // the fragment alone, so growing needs no row. A part starts with
  // kPartSlots free slots.
  static constexpr std::size_t kParts = 256, kPartSlots = 16;
  struct Part {
    std::vector<std::uint64_t> slots = std::vector<std::uint64_t>(kPartSlots, 0);
    std::size_t used = 0;
    // Whether n more entries fill it past 70%, so that it grows by half.
    [[nodiscard]] bool full(std::size_t n) const { return (used + n) * 10 > slots.size() * 7; }
    [[nodiscard]] std::size_t grown() const { return slots.size() + std::max<std::size_t>(1, slots.size() / 2); }
    void grow();
  };
  // at_level: the hash's top five bits, the first five of a part's eight, are the level's modulo 32.
  static constexpr unsigned kLevelBits = 5, kLevelShift = 64 - kLevelBits;
  static constexpr std::size_t kLevelClasses = std::size_t{1} << kLevelBits;
  [[nodiscard]] static std::size_t part_of(std::uint64_t frag) { return static_cast<std::size_t>(frag >> 24); }
  // The slot where a row with hash h is looked for first.
  [[nodiscard]] const std::uint64_t& home_slot(std::uint64_t h) const {
    const auto& slots = parts_[part_of(h >> 32)].slots;
    return slots[home(h >> 32, slots.size())];
  }
  // Where a fragment's probe starts in a part of n slots: the fragment's low
  // 24 bits, as a fraction, of the way along. Order-preserving, so a part of
  // any size spreads fragments evenly.
  [[nodiscard]] static std::size_t home(std::uint64_t frag, std::uint64_t n) {
    const auto f = (frag << 8) & 0xffffffff;
    return static_cast<std::size_t>(f * (n >> 32) + ((f * (n & 0xffffffff)) >> 32));
  }
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
  // What pack() and unpack() read for each field of the current layout, in
  // order: its column's dictionary (codes and direct lookup) and its bits,
  // in one array. Kept current as a column gains a code (its fields'
  // dictionary, found through `next`, the column's next field) or a field
  // (appended), so a wide row's new codes cost their column, not the plan;
  // stale once a layout starts or the table widens: pack() rebuilds it, and
  // unpack() reads it only while it is current.
  struct PlanField {
    const std::uint32_t* direct;
    const Code* codes;
    std::uint32_t direct_size, col, bits, shift, mask;
    std::uint32_t next = kNone;  // the plan's next field of the same column
  };
  void plan();
  void plan_field(const Field& f);  // appends f to the plan
  void replan_column(std::size_t col);  // its fields' dictionary, after a code was added
  // A row of layout l from in (stride bytes), into `width` codes.
  void unpack(const Layout& l, const std::uint8_t* in, std::size_t stride, Code* row, std::size_t width) const;
  // Gives column col the bits its dictionary needs: a field for those it lacks.
  void widen(std::uint32_t col);
  void new_layout();     // the current dictionaries' bits, one field per column
  void start_chunk();    // for row size_: compact layout if the current one is split
  void restride();       // the chunk being filled, copied to a stride that holds the current rows
  [[nodiscard]] static std::size_t stride_with_headroom(std::size_t row_bytes) { return row_bytes + row_bytes / 8 + 8; }
  [[nodiscard]] std::uint8_t* at(StateIndex i) const {
    const auto& c = chunks_[i >> kChunkBits];
    return c.bytes.get() + std::size_t{i & (kChunkRows - 1)} * c.stride;
  }
  [[nodiscard]] std::uint32_t layout_of(StateIndex i) const { return chunks_[i >> kChunkBits].layout; }
  [[nodiscard]] bool equal(StateIndex i, std::span<const Code> row);
  [[nodiscard]] static std::size_t chunk_bytes(std::size_t stride) { return kChunkRows * stride + sizeof(std::uint64_t); }
  std::unique_ptr<std::uint8_t[]> allocate(std::size_t stride);

  static constexpr std::uint32_t kNone = UINT32_MAX;
  std::size_t width_, size_ = 0;
  std::vector<Column> columns_;
  std::unordered_map<std::uint64_t, std::uint32_t> large_codes_;  // (column, code) -> index, for codes from kDirectCodes
  std::vector<Layout> layouts_;                                    // the last is current
  std::vector<Chunk> chunks_;
  std::size_t held_bytes_ = 0;        // chunks, dictionaries and layouts, counted as they grow
  std::vector<PlanField> plan_;
  std::vector<std::uint32_t> plan_first_;  // by column: its first field in the plan (kNone: none)
  std::size_t plan_width_ = 0;  // one past the last column with bits
  std::vector<Code> empty_only_;  // by column of the current layout: all ones where it has no bits (holds EMPTY only), else 0
  bool plan_stale_ = true;
  std::vector<std::uint8_t> packed_;  // the row being inserted, packed
  Row padded_;                        // a row shorter than plan_width_, padded with EMPTY
  Row scratch_;                       // a stored row of an older layout, unpacked
  std::vector<Part> parts_;
  static constexpr std::uint64_t kIndex = 0xffffffff;
  [[nodiscard]] static StateIndex stored_at(std::uint64_t slot) { return static_cast<StateIndex>((slot & kIndex) - 1); }
};

}  // namespace tfsem::explorer
