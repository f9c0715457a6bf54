#include "explorer/state_table.hpp"

#include "explorer/checkpoint_file.hpp"
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
    : width_(width), columns_(width, Column{{kEmptyCode}, {1}}), layouts_(1), parts_(kParts) {
  layouts_[0].bits.assign(width, 0);
  held_bytes_ = width * (2 * sizeof(Code) + 1);  // each column's dictionary {EMPTY}, its bits
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
  if (!plan_stale_) replan_column(col);
  return i;
}

void StateTable::plan() {
  const auto& l = layouts_.back();
  plan_.clear();
  plan_first_.assign(columns_.size(), kNone);
  plan_width_ = 0;
  empty_only_.assign(l.bits.size(), ~Code{0});
  for (const auto& f : l.fields) plan_field(f);
  plan_stale_ = false;
}

void StateTable::plan_field(const Field& f) {
  const auto& c = columns_[f.col];
  const auto k = static_cast<std::uint32_t>(plan_.size());
  plan_.push_back({c.direct.data(), c.codes.data(), static_cast<std::uint32_t>(c.direct.size()), f.col, f.bits, f.shift,
                   static_cast<std::uint32_t>((std::uint64_t{1} << f.bits) - 1)});
  auto* link = &plan_first_[f.col];
  while (*link != kNone) link = &plan_[*link].next;
  *link = k;
  plan_width_ = std::max<std::size_t>(plan_width_, f.col + 1);
  if (empty_only_.size() <= f.col) empty_only_.resize(f.col + 1, ~Code{0});
  empty_only_[f.col] = 0;
}

void StateTable::replan_column(std::size_t col) {
  const auto& c = columns_[col];
  for (auto k = plan_first_[col]; k != kNone; k = plan_[k].next) {
    plan_[k].direct = c.direct.data();
    plan_[k].codes = c.codes.data();
    plan_[k].direct_size = static_cast<std::uint32_t>(c.direct.size());
  }
}

// Rows are bit strings: each field, its bits wide, least significant bit
// first, written and read a 64-bit word at a time. Buffers are followed by 8
// spare bytes, so the last word may be written or read whole.
bool StateTable::pack(std::span<const Code> row) {
  if (plan_stale_) plan();
  const auto& l = layouts_.back();
  // A column without bits has held EMPTY only (code 0): any other code is new to it.
  Code stray = 0;
  const auto known = std::min(row.size(), empty_only_.size());
  for (std::size_t col = 0; col < known; ++col) stray |= row[col] & empty_only_[col];
  for (auto col = known; col < row.size(); ++col) stray |= row[col];
  if (stray != 0) return false;
  row = padded(row, plan_width_, padded_);  // columns past the row are EMPTY, index 0
  packed_.resize(l.row_bytes() + sizeof(std::uint64_t));
  auto* out = packed_.data();
  std::uint64_t word = 0;
  unsigned used = 0;
  for (const auto& p : plan_) {
    const auto i = index_in(p.direct, p.direct_size, p.col, row[p.col]);
    if (i == kNone) return false;
    const auto v = (i >> p.shift) & p.mask;
    word |= std::uint64_t{v} << used;
    used += p.bits;
    if (used >= 64) {
      std::memcpy(out, &word, sizeof word);
      out += sizeof word;
      used -= 64;
      word = std::uint64_t{v} >> (p.bits - used);  // 0 when v ended the word (v < 2^bits)
    }
  }
  std::memcpy(out, &word, sizeof word);
  // Columns past the row are EMPTY, index 0: the rest of the row is zeros.
  const auto end = packed_.data() + l.row_bytes();
  if (out + sizeof word < end) std::memset(out + sizeof word, 0, static_cast<std::size_t>(end - out - sizeof word));
  return true;
}

void StateTable::unpack(const Layout& l, const std::uint8_t* in, std::size_t stride, Code* row, std::size_t width) const {
  // A column without bits holds its dictionary's only code, EMPTY; so do
  // the columns past the row's own width. A field that ends past the stride
  // was added after the row was stored: it reads 0, as do those after it.
  std::fill(row, row + width, kEmptyCode);
  const auto limit = stride * 8;
  std::size_t offset = 0;
  auto field = [&](std::uint32_t bits) {
    std::uint64_t w;
    std::memcpy(&w, in + (offset >> 3), sizeof w);
    const auto v = static_cast<std::uint32_t>((w >> (offset & 7)) & ((std::uint64_t{1} << bits) - 1));
    offset += bits;
    return v;
  };
  if (&l == &layouts_.back() && !plan_stale_ && !l.split()) {  // the plan reads the same, in one array
    for (const auto& p : plan_) {
      if (offset + p.bits > limit) break;
      const auto v = field(p.bits);
      if (p.col < width) row[p.col] = p.codes[v];
    }
    return;
  }
  // Each column's index put together from its fields, then its code.
  for (const auto& f : l.fields) {
    if (offset + f.bits > limit) break;
    const auto v = field(f.bits);
    if (f.col < width) row[f.col] |= v << f.shift;
  }
  for (const auto col : l.live)
    if (col < width) row[col] = columns_[col].codes[row[col]];
}

std::unique_ptr<std::uint8_t[]> StateTable::allocate(std::size_t stride) {
  held_bytes_ += chunk_bytes(stride);
  auto bytes = std::make_unique_for_overwrite<std::uint8_t[]>(chunk_bytes(stride));
  std::memset(bytes.get() + kChunkRows * stride, 0, sizeof(std::uint64_t));
  return bytes;
}

void StateTable::widen(std::uint32_t col) {
  auto& l = layouts_.back();
  const auto need = bits_for(columns_[col].codes.size());
  if (l.bits.size() <= col) {
    held_bytes_ += col + 1 - l.bits.size();
    l.bits.resize(col + 1, 0);
  }
  const auto have = l.bits[col];
  if (need <= have) return;
  if (have == 0) l.live.push_back(col);
  l.fields.push_back({col, static_cast<std::uint8_t>(need - have), have});
  l.bits[col] = static_cast<std::uint8_t>(need);
  l.row_bits += need - have;
  held_bytes_ += sizeof(Field) + (have == 0 ? sizeof(std::uint32_t) : 0);
  if (!plan_stale_) plan_field(l.fields.back());
}

void StateTable::new_layout() {
  Layout l;
  for (std::uint32_t col = 0; col < columns_.size(); ++col) {
    const auto bits = static_cast<std::uint8_t>(bits_for(columns_[col].codes.size()));
    l.bits.push_back(bits);
    if (bits == 0) continue;
    l.live.push_back(col);
    l.fields.push_back({col, bits, 0});
    l.row_bits += bits;
  }
  held_bytes_ += l.bits.size() + l.live.size() * (sizeof(std::uint32_t) + sizeof(Field));
  layouts_.push_back(std::move(l));
  plan_stale_ = true;
}

void StateTable::start_chunk() {
  if (layouts_.back().split()) new_layout();
  const auto stride = layouts_.back().row_bytes();
  chunks_.push_back({allocate(stride), static_cast<std::uint32_t>(layouts_.size() - 1), static_cast<std::uint32_t>(stride)});
}

void StateTable::restride() {
  auto& c = chunks_.back();
  const auto stride = stride_with_headroom(layouts_.back().row_bytes());
  auto bytes = allocate(stride);
  const auto filled = (size_ - 1) & (kChunkRows - 1);  // the rows before the one being inserted
  for (std::size_t k = 0; k < filled; ++k) {
    std::memcpy(bytes.get() + k * stride, c.bytes.get() + k * c.stride, c.stride);
    std::memset(bytes.get() + k * stride + c.stride, 0, stride - c.stride);
  }
  held_bytes_ -= chunk_bytes(c.stride);
  c.bytes = std::move(bytes);
  c.stride = static_cast<std::uint32_t>(stride);
}

bool StateTable::equal(StateIndex i, std::span<const Code> r) {
  if (layout_of(i) == layouts_.size() - 1) {
    // Both zero past their own fields: the common bytes equal, and the rest zeros.
    const std::size_t stride = chunks_[i >> kChunkBits].stride, bytes = layouts_.back().row_bytes();
    const auto common = std::min<std::size_t>(stride, bytes);
    return std::memcmp(at(i), packed_.data(), common) == 0 &&
           std::all_of(packed_.data() + common, packed_.data() + bytes, [](std::uint8_t b) { return b == 0; });
  }
  load(i, scratch_);  // padded with EMPTY to the table's width
  return same_row(r, scratch_);
}

void StateTable::load(StateIndex i, Row& r) const {
  r.resize(width_);
  load(i, r.data(), width_);
}

void StateTable::load(StateIndex i, Code* r, std::size_t width) const {
  const auto& c = chunks_[i >> kChunkBits];
  unpack(layouts_[c.layout], at(i), c.stride, r, width);
}

std::pair<StateIndex, bool> StateTable::insert(std::span<const Code> r, std::uint64_t h) {
  if (r.size() > width_) {
    held_bytes_ += (r.size() - width_) * 2 * sizeof(Code);
    width_ = r.size();
    columns_.resize(width_, Column{{kEmptyCode}, {1}});
    plan_stale_ = true;
  }
  auto& index = parts_[part_of(fragment(h))];
  if (index.full(1)) index.grow();
  // Packed when a slot's fragment first matches. A row with a code its column
  // never held is new: no stored row can equal it.
  enum { unpacked, known, novel } packing = unpacked;
  auto& slots = index.slots;
  const auto n = slots.size(), frag = fragment(h);
  auto pos = home(frag, n);
  for (; slots[pos] != 0; pos = pos + 1 == n ? 0 : pos + 1) {
    const auto slot = slots[pos];
    if (slot >> 32 != frag) continue;
    if (packing == unpacked) packing = pack(r) ? known : novel;
    if (packing == novel) continue;
    const auto i = stored_at(slot);
    if (equal(i, r)) return {i, false};
  }
  if (size_ >= std::numeric_limits<StateIndex>::max() - 1) throw std::length_error("state table: 2^32 states");
  if (packing != known && !pack(r)) {
    for (std::size_t col = 0; col < r.size(); ++col)
      if (index_of(col, r[col]) == kNone) {
        add_code(col, r[col]);
        widen(static_cast<std::uint32_t>(col));
      }
    pack(r);
  }
  const auto i = static_cast<StateIndex>(size_++);
  if ((i >> kChunkBits) == chunks_.size()) {
    const auto layout = layouts_.size();
    start_chunk();
    if (layouts_.size() != layout) pack(r);  // in the new layout
  } else if (chunks_.back().stride < layouts_.back().row_bytes()) {
    restride();
  }
  const std::size_t stride = chunks_.back().stride, bytes = layouts_.back().row_bytes();
  std::memcpy(at(i), packed_.data(), bytes);
  std::memset(at(i) + bytes, 0, stride - bytes);
  slots[pos] = frag << 32 | (std::uint64_t{i} + 1);
  ++index.used;
  return {i, true};
}

void StateTable::Part::grow() {
  std::vector<std::uint64_t> old(grown(), 0);
  old.swap(slots);
  const auto n = slots.size();
  for (auto slot : old) {
    if (slot == 0) continue;
    auto pos = home(slot >> 32, n);
    while (slots[pos] != 0) pos = pos + 1 == n ? 0 : pos + 1;
    slots[pos] = slot;
  }
}

void StateTable::let_go_level(std::size_t level) {
  constexpr auto per_level = kParts / kLevelClasses;
  const auto first = (level % kLevelClasses) * per_level;
  for (auto k = first; k < first + per_level; ++k) parts_[k] = Part{};
}

std::size_t StateTable::bytes() const {
  std::size_t slots = 0;
  for (const auto& p : parts_) slots += p.slots.size();
  return slots * sizeof(std::uint64_t) + large_codes_.size() * 32 + held_bytes_;
}

std::size_t StateTable::growth_bytes(std::size_t rows, std::size_t width) const {
  // Each part the rows may fill past 70% grows, one at a time (the old slots
  // of one held with its new ones).
  std::size_t slots = 0, largest = 0;
  for (const auto& p : parts_)
    if (p.full(rows)) slots += p.grown() - p.slots.size(), largest = std::max(largest, p.slots.size());
  slots = (slots + largest) * sizeof(std::uint64_t);
  // A row may gain a bit in each column; the chunk being filled is copied to a stride that holds it.
  return slots + chunk_bytes(stride_with_headroom(layouts_.back().row_bytes() + (std::max(width, width_) + 7) / 8));
}

void StateTable::save(CheckpointOut& out) const {
  out.pod<std::uint64_t>(width_);
  out.pod<std::uint64_t>(size_);
  out.pod<std::uint64_t>(held_bytes_);
  for (const auto& c : columns_) out.list(c.codes);
  out.pod<std::uint64_t>(layouts_.size());
  for (const auto& l : layouts_) {
    out.list(l.bits);
    out.list(l.live);
    out.list(l.fields);
    out.pod<std::uint64_t>(l.row_bits);
  }
  out.pod<std::uint64_t>(chunks_.size());
  for (std::size_t k = 0; k < chunks_.size(); ++k) {
    const auto rows = std::min(kChunkRows, size_ - k * kChunkRows);
    out.pod(chunks_[k].layout);
    out.pod(chunks_[k].stride);
    out.raw(chunks_[k].bytes.get(), rows * chunks_[k].stride);
  }
  for (const auto& p : parts_) out.list(p.slots);
}

void StateTable::restore(CheckpointIn& in) {
  const auto corrupted = [&](const std::string& what) { return CheckpointError(in.path() + ": corrupted: " + what); };
  if (size_ != 0) throw std::logic_error("state table: restored into a table that holds rows");
  const auto width = in.pod<std::uint64_t>();
  size_ = in.pod<std::uint64_t>();
  const auto held = in.pod<std::uint64_t>();
  if (width < width_ || width > UINT32_MAX || size_ >= std::numeric_limits<StateIndex>::max()) throw corrupted("the state table");
  width_ = width;
  columns_.assign(width_, Column{});
  large_codes_.clear();
  for (std::uint32_t col = 0; col < width_; ++col) {
    auto& c = columns_[col];
    c.codes = in.list<Code>();
    if (c.codes.empty() || c.codes[0] != kEmptyCode) throw corrupted("a column's dictionary");
    for (std::uint32_t i = 0; i < c.codes.size(); ++i) {
      const auto code = c.codes[i];
      if (code >= kDirectCodes) {
        large_codes_.emplace(std::uint64_t{col} << 32 | code, i);
        continue;
      }
      if (c.direct.size() <= code) c.direct.resize(code + 1, 0);
      c.direct[code] = i + 1;
    }
  }
  layouts_.resize(in.size(UINT32_MAX, 1));
  for (auto& l : layouts_) {
    l.bits = in.list<std::uint8_t>();
    l.live = in.list<std::uint32_t>();
    l.fields = in.list<Field>();
    l.row_bits = in.pod<std::uint64_t>();
    for (const auto& f : l.fields)
      if (f.col >= width_ || f.bits > 32) throw corrupted("a layout");
  }
  if (layouts_.empty()) throw corrupted("the state table's layouts");
  chunks_.resize(in.size(UINT32_MAX, 1));
  if (chunks_.size() != (size_ + kChunkRows - 1) / kChunkRows) throw corrupted("the state table's chunks");
  for (std::size_t k = 0; k < chunks_.size(); ++k) {
    auto& c = chunks_[k];
    c.layout = in.pod<std::uint32_t>();
    c.stride = in.pod<std::uint32_t>();
    if (c.layout >= layouts_.size()) throw corrupted("a chunk of rows");
    c.bytes = allocate(c.stride);
    in.raw(c.bytes.get(), std::min(kChunkRows, size_ - k * kChunkRows) * c.stride);
  }
  // A stored row at most once (let_go_level leaves rows out), in its part,
  // where its probe finds it: a slot that names no row, or one its probe
  // would never reach, would leave a row unfound and stored again.
  std::vector<bool> indexed(size_, false);
  for (std::size_t k = 0; k < kParts; ++k) {
    auto& p = parts_[k];
    p.slots = in.list<std::uint64_t>();
    if (p.slots.size() < kPartSlots) throw corrupted("the state table's index");
    const auto n = p.slots.size();
    p.used = 0;
    for (std::size_t pos = 0; pos < n; ++pos) {
      const auto slot = p.slots[pos];
      if (slot == 0) continue;
      const auto i = slot & kIndex;
      if (i == 0 || i > size_ || indexed[i - 1] || part_of(slot >> 32) != k) throw corrupted("the state table's index");
      indexed[i - 1] = true;
      for (auto at = home(slot >> 32, n); at != pos; at = at + 1 == n ? 0 : at + 1)
        if (p.slots[at] == 0) throw corrupted("the state table's index");
      ++p.used;
    }
    if (p.full(0)) throw corrupted("the state table's index");
  }
  held_bytes_ = held;
  plan_stale_ = true;
}

}  // namespace tfsem::explorer
