#include "explorer/state_table.hpp"

#include "support/hash.hpp"

#include <algorithm>
#include <bit>
#include <cstring>
#include <limits>
#include <stdexcept>

namespace tfsem::explorer {

namespace {

std::uint64_t fragment(std::uint64_t h) { return h >> 32; }

// The bits that tell apart n dictionary entries.
std::uint32_t bits_for(std::size_t n) { return n <= 1 ? 0 : static_cast<std::uint32_t>(std::bit_width(n - 1)); }

}  // namespace

StateTable::StateTable(std::size_t width)
    : width_(width), columns_(width, Column{{kEmptyCode}, {1}}), layouts_(1), slots_(std::size_t{1} << 12, 0) {
  layouts_[0].bits.assign(width, 0);
  for (std::uint32_t col = 0; col < width; ++col) layouts_[0].blank.push_back(col);
  held_bytes_ = width * (2 * sizeof(Code) + 1 + sizeof(Code));  // each column's dictionary {EMPTY}, its layout
}

std::uint64_t StateTable::hash(std::span<const Code> row) {
  auto n = row.size();
  while (n > 0 && row[n - 1] == kEmptyCode) --n;
  return hash_words(row.data(), n);
}

std::uint32_t StateTable::large_index_of(std::size_t col, Code c) const {
  const auto it = large_codes_.find(std::uint64_t{col} << 32 | c);
  return it == large_codes_.end() ? kNone : it->second;
}

std::uint32_t StateTable::add_code(std::size_t col, Code c) {
  auto& column = columns_[col];
  plan_stale_ = true;
  const auto i = static_cast<std::uint32_t>(column.codes.size());
  column.codes.push_back(c);
  held_bytes_ += sizeof(Code);
  if (c < kDirectCodes) {
    if (column.direct.size() <= c) {
      held_bytes_ += (c + 1 - column.direct.size()) * sizeof(std::uint32_t);
      column.direct.resize(c + 1, 0);
    }
    column.direct[c] = i + 1;
  } else {
    large_codes_.emplace(std::uint64_t{col} << 32 | c, i);
  }
  return i;
}

void StateTable::plan() {
  const auto& l = layouts_.back();
  plan_.clear();
  for (const auto col : l.live) {
    const auto& c = columns_[col];
    const std::uint32_t bits = l.bits[col];
    plan_.push_back({c.direct.data(), c.codes.data(), static_cast<std::uint32_t>(c.direct.size()), col, bits,
                     static_cast<std::uint32_t>((std::uint64_t{1} << bits) - 1)});
  }
  plan_width_ = l.live.empty() ? 0 : l.live.back() + 1;
  plan_stale_ = false;
}

// Rows are bit strings: each column's index, its layout's bits wide, least
// significant bit first, written and read a 64-bit word at a time. Buffers are
// followed by 8 spare bytes, so the last word may be written or read whole.
bool StateTable::pack(std::span<const Code> row) {
  if (plan_stale_) plan();
  const auto& l = layouts_.back();
  // A column without bits has held EMPTY only (code 0): any other code is new to it.
  Code stray = 0;
  for (const auto col : l.blank) {
    if (col >= row.size()) break;
    stray |= row[col];
  }
  for (auto col = l.bits.size(); col < row.size(); ++col) stray |= row[col];
  if (stray != 0) return false;
  row = padded(row, plan_width_, padded_);  // columns past the row are EMPTY, index 0
  packed_.resize(l.row_bytes + sizeof(std::uint64_t));
  auto* out = packed_.data();
  std::uint64_t word = 0;
  unsigned used = 0;
  for (const auto& p : plan_) {
    const auto i = index_in(p.direct, p.direct_size, p.col, row[p.col]);
    if (i == kNone) return false;
    word |= std::uint64_t{i} << used;
    used += p.bits;
    if (used >= 64) {
      std::memcpy(out, &word, sizeof word);
      out += sizeof word;
      used -= 64;
      word = std::uint64_t{i} >> (p.bits - used);  // 0 when i ended the word (i < 2^bits)
    }
  }
  std::memcpy(out, &word, sizeof word);
  // Columns past the row are EMPTY, index 0: the rest of the row is zeros.
  const auto end = packed_.data() + l.row_bytes;
  if (out + sizeof word < end) std::memset(out + sizeof word, 0, static_cast<std::size_t>(end - out - sizeof word));
  return true;
}

void StateTable::unpack(const Layout& l, const std::uint8_t* in, Code* row, std::size_t width) const {
  // A column without bits holds its dictionary's only code, EMPTY; so do
  // the columns past the row's own width.
  std::fill(row, row + width, kEmptyCode);
  std::size_t offset = 0;
  if (&l == &layouts_.back() && !plan_stale_) {  // the plan reads the same, in one array
    for (const auto& p : plan_) {
      if (p.col >= width) break;
      std::uint64_t w;
      std::memcpy(&w, in + (offset >> 3), sizeof w);
      row[p.col] = p.codes[(w >> (offset & 7)) & p.mask];
      offset += p.bits;
    }
    return;
  }
  for (const auto col : l.live) {
    if (col >= width) break;
    const unsigned bits = l.bits[col];
    std::uint64_t w;
    std::memcpy(&w, in + (offset >> 3), sizeof w);
    row[col] = columns_[col].codes[(w >> (offset & 7)) & ((std::uint64_t{1} << bits) - 1)];
    offset += bits;
  }
}

std::size_t StateTable::chunk_bytes(const Layout& l) { return kChunkRows * l.row_bytes + sizeof(std::uint64_t); }

std::unique_ptr<std::uint8_t[]> StateTable::allocate(const Layout& l) {
  held_bytes_ += chunk_bytes(l);
  return std::make_unique_for_overwrite<std::uint8_t[]>(chunk_bytes(l));
}

void StateTable::new_layout() {
  Layout l;
  std::size_t bits = 0;
  for (std::uint32_t col = 0; col < columns_.size(); ++col) {
    l.bits.push_back(static_cast<std::uint8_t>(bits_for(columns_[col].codes.size())));
    (l.bits.back() != 0 ? l.live : l.blank).push_back(col);
    bits += l.bits.back();
  }
  l.row_bytes = (bits + 7) / 8;
  held_bytes_ += l.bits.size() * (1 + 2 * sizeof(Code));
  layouts_.push_back(std::move(l));
  plan_stale_ = true;
  const auto layout = static_cast<std::uint32_t>(layouts_.size() - 1);
  const auto filled = size_ & (kChunkRows - 1);
  if (filled == 0) return;  // the next chunk starts in the new layout
  // The chunk being filled, rewritten in the new layout.
  const auto first = static_cast<StateIndex>(size_ - filled);
  const auto row_bytes = layouts_.back().row_bytes;
  auto bytes = allocate(layouts_.back());
  Row r;
  for (std::size_t k = 0; k < filled; ++k) {
    load(static_cast<StateIndex>(first + k), r);
    pack(r);
    std::memcpy(bytes.get() + k * row_bytes, packed_.data(), row_bytes);
  }
  held_bytes_ -= chunk_bytes(layouts_[chunks_.back().layout]);
  chunks_.back() = {std::move(bytes), layout};
}

bool StateTable::equal(StateIndex i, std::span<const Code> r) {
  const auto layout = layout_of(i);
  if (layout == layouts_.size() - 1) return std::memcmp(at(i), packed_.data(), layouts_[layout].row_bytes) == 0;
  load(i, scratch_);  // padded with EMPTY to the table's width
  return same_row(r, scratch_);
}

void StateTable::load(StateIndex i, Row& r) const {
  r.resize(width_);
  load(i, r.data(), width_);
}

void StateTable::load(StateIndex i, Code* r, std::size_t width) const { unpack(layouts_[layout_of(i)], at(i), r, width); }

std::pair<StateIndex, bool> StateTable::insert(std::span<const Code> r, std::uint64_t h) {
  if (r.size() > width_) {
    held_bytes_ += (r.size() - width_) * 2 * sizeof(Code);
    width_ = r.size();
    columns_.resize(width_, Column{{kEmptyCode}, {1}});
    plan_stale_ = true;
  }
  if (full(1)) grow();
  // Packed when a slot's fragment first matches. A row with a code its column
  // never held is new: no stored row can equal it.
  enum { unpacked, known, novel } packing = unpacked;
  const auto mask = slots_.size() - 1, frag = fragment(h);
  auto pos = frag & mask;
  for (; slots_[pos] != 0; pos = (pos + 1) & mask) {
    const auto slot = slots_[pos];
    if (slot >> 32 != frag) continue;
    if (packing == unpacked) packing = pack(r) ? known : novel;
    if (packing == novel) continue;
    const auto i = stored_at(slot);
    if (equal(i, r)) return {i, false};
  }
  if (size_ >= std::numeric_limits<StateIndex>::max() - 1) throw std::length_error("state table: 2^32 states");
  if (packing != known && !pack(r)) {
    bool wider = false;
    const auto& bits = layouts_.back().bits;
    for (std::size_t col = 0; col < r.size(); ++col)
      if (index_of(col, r[col]) == kNone) {
        add_code(col, r[col]);
        wider = wider || bits_for(columns_[col].codes.size()) > (col < bits.size() ? bits[col] : 0U);
      }
    if (wider) new_layout();
    pack(r);
  }
  const auto i = static_cast<StateIndex>(size_++);
  if ((i >> kChunkBits) == chunks_.size())
    chunks_.push_back({allocate(layouts_.back()), static_cast<std::uint32_t>(layouts_.size() - 1)});
  std::memcpy(at(i), packed_.data(), layouts_.back().row_bytes);
  slots_[pos] = frag << 32 | (std::uint64_t{i} + 1);
  return {i, true};
}

void StateTable::grow() {
  std::vector<std::uint64_t> old(slots_.size() * 2, 0);
  old.swap(slots_);
  const auto mask = slots_.size() - 1;
  for (auto slot : old) {
    if (slot == 0) continue;
    auto pos = (slot >> 32) & mask;
    while (slots_[pos] != 0) pos = (pos + 1) & mask;
    slots_[pos] = slot;
  }
}

std::size_t StateTable::bytes() const {
  return slots_.size() * sizeof(std::uint64_t) + large_codes_.size() * 32 + held_bytes_;
}

std::size_t StateTable::growth_bytes(std::size_t rows, std::size_t width) const {
  const auto slots = full(rows) ? 2 * slots_.size() * sizeof(std::uint64_t) : 0;
  // A new layout may give each column one more bit; the chunk being filled is rewritten in it.
  return slots + kChunkRows * (layouts_.back().row_bytes + (std::max(width, width_) + 7) / 8);
}

}  // namespace tfsem::explorer
