#include "explorer/state_table.hpp"

#include "semantics/hash.hpp"

#include <algorithm>
#include <cstring>
#include <limits>
#include <stdexcept>

namespace tfsem::explorer {

namespace {

std::uint64_t fragment(std::uint64_t h) { return h >> 32; }

unsigned bytes_for(Code c) { return c <= 0xffU ? 1 : c <= 0xffffU ? 2 : 4; }

// Row r, padded with EMPTY to `width` codes, stored with `bytes` bytes per code, and back.
template <class T>
void store_as(std::span<const Code> r, std::size_t width, std::uint8_t* out) {
  for (std::size_t i = 0; i < width; ++i) {
    const auto v = static_cast<T>(i < r.size() ? r[i] : kEmptyCode);
    std::memcpy(out + i * sizeof(T), &v, sizeof(T));
  }
}
template <class T>
void load_as(const std::uint8_t* in, std::size_t width, Code* r) {
  for (std::size_t i = 0; i < width; ++i) {
    T v;
    std::memcpy(&v, in + i * sizeof(T), sizeof(T));
    r[i] = v;
  }
}
// Whether the stored row equals r padded with EMPTY (r is at most width long).
template <class T>
bool equal_as(const std::uint8_t* in, std::size_t width, std::span<const Code> r) {
  for (std::size_t i = 0; i < width; ++i) {
    T v;
    std::memcpy(&v, in + i * sizeof(T), sizeof(T));
    if (v != (i < r.size() ? r[i] : kEmptyCode)) return false;
  }
  return true;
}

void store(std::span<const Code> r, std::size_t width, unsigned bytes, std::uint8_t* out) {
  if (bytes == 1) store_as<std::uint8_t>(r, width, out);
  else if (bytes == 2) store_as<std::uint16_t>(r, width, out);
  else store_as<std::uint32_t>(r, width, out);
}

}  // namespace

StateTable::StateTable(std::size_t width) : width_(width), slots_(std::size_t{1} << 12, 0) {}

std::uint64_t StateTable::hash(std::span<const Code> row) {
  auto n = row.size();
  while (n > 0 && row[n - 1] == kEmptyCode) --n;
  return hash_words(row.data(), n);
}

bool StateTable::equal(StateIndex i, std::span<const Code> r) const {
  if (code_bytes_ == 1) return equal_as<std::uint8_t>(at(i), width_, r);
  if (code_bytes_ == 2) return equal_as<std::uint16_t>(at(i), width_, r);
  return equal_as<std::uint32_t>(at(i), width_, r);
}

void StateTable::load(StateIndex i, Row& r) const {
  r.resize(width_);
  load(i, r.data());
}

void StateTable::load(StateIndex i, Code* r) const {
  if (code_bytes_ == 1) load_as<std::uint8_t>(at(i), width_, r);
  else if (code_bytes_ == 2) load_as<std::uint16_t>(at(i), width_, r);
  else load_as<std::uint32_t>(at(i), width_, r);
}

std::pair<StateIndex, bool> StateTable::insert(std::span<const Code> r, std::uint64_t h) {
  if (r.size() > width_) relayout(wider(r.size()), code_bytes_);
  if (full(1)) grow();
  const auto mask = slots_.size() - 1, frag = fragment(h);
  auto pos = frag & mask;
  for (; slots_[pos] != 0; pos = (pos + 1) & mask) {
    const auto slot = slots_[pos];
    if (slot >> 32 != frag) continue;
    const auto i = static_cast<StateIndex>((slot & 0xffffffffU) - 1);
    if (equal(i, r)) return {i, false};
  }
  if (size_ >= std::numeric_limits<StateIndex>::max() - 1) throw std::length_error("state table: 2^32 states");
  const auto widest = r.empty() ? 1 : bytes_for(*std::max_element(r.begin(), r.end()));
  if (widest > code_bytes_) relayout(width_, widest);
  const auto i = static_cast<StateIndex>(size_++);
  if ((i >> kChunkBits) == chunks_.size())
    chunks_.push_back(std::make_unique_for_overwrite<std::uint8_t[]>(kChunkRows * width_ * code_bytes_));
  store(r, width_, code_bytes_, at(i));
  slots_[pos] = frag << 32 | (std::uint64_t{i} + 1);
  return {i, true};
}

void StateTable::relayout(std::size_t width, unsigned code_bytes) {
  Row r;
  std::vector<std::unique_ptr<std::uint8_t[]>> wider;
  for (std::size_t c = 0; c < chunks_.size(); ++c) {
    wider.push_back(std::make_unique_for_overwrite<std::uint8_t[]>(kChunkRows * width * code_bytes));
    for (std::size_t k = 0; k < kChunkRows && c * kChunkRows + k < size_; ++k) {
      load(static_cast<StateIndex>(c * kChunkRows + k), r);
      store(r, width, code_bytes, wider.back().get() + k * width * code_bytes);
    }
  }
  chunks_ = std::move(wider);
  width_ = width;
  code_bytes_ = code_bytes;
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
  return chunks_.size() * kChunkRows * width_ * code_bytes_ + slots_.size() * sizeof(std::uint64_t);
}

std::size_t StateTable::growth_bytes(std::size_t rows, std::size_t width, Code largest) const {
  const auto slots = full(rows) ? 2 * slots_.size() * sizeof(std::uint64_t) : 0;
  const auto w = width > width_ ? wider(width) : width_;
  const auto b = std::max(code_bytes_, bytes_for(largest));
  return slots + (w != width_ || b != code_bytes_ ? chunks_.size() * kChunkRows * w * b : 0);
}

}  // namespace tfsem::explorer
