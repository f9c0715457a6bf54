#include "explorer/state_table.hpp"

#include "semantics/hash.hpp"

#include <algorithm>
#include <limits>
#include <stdexcept>

namespace tfsem::explorer {

namespace {
std::uint64_t fragment(std::uint64_t h) { return h >> 32; }
}  // namespace

StateTable::StateTable(std::size_t width) : width_(width), slots_(std::size_t{1} << 12, 0) {}

std::uint64_t StateTable::hash(const Code* row) const { return hash_words(row, width_); }

std::pair<StateIndex, bool> StateTable::insert(const Code* r, std::uint64_t h) {
  if ((size_ + 1) * 10 > slots_.size() * 7) grow();
  const auto mask = slots_.size() - 1, frag = fragment(h);
  for (auto pos = frag & mask;; pos = (pos + 1) & mask) {
    const auto slot = slots_[pos];
    if (slot == 0) break;
    if (slot >> 32 != frag) continue;
    const auto i = static_cast<StateIndex>((slot & 0xffffffffU) - 1);
    if (std::equal(r, r + width_, row(i))) return {i, false};
  }
  if (size_ >= std::numeric_limits<StateIndex>::max() - 1) throw std::length_error("state table: 2^32 states");
  const auto i = static_cast<StateIndex>(size_++);
  if ((i >> kChunkBits) == chunks_.size()) chunks_.push_back(std::make_unique<Code[]>(kChunkRows * width_));
  std::copy(r, r + width_, at(i));
  for (auto pos = frag & mask;; pos = (pos + 1) & mask)
    if (slots_[pos] == 0) {
      slots_[pos] = frag << 32 | (std::uint64_t{i} + 1);
      break;
    }
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
  return chunks_.size() * kChunkRows * width_ * sizeof(Code) + slots_.size() * sizeof(std::uint64_t);
}

}  // namespace tfsem::explorer
