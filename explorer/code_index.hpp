// An index from keys to the numbers of a list (the codec's interned tensors),
// by open addressing: a slot is 8 bytes, the key's hash's high half and the
// number + 1, with no allocation per key (a node-based hash map makes one per
// insert, and while-sum interns three new tensors every iteration). The
// caller keeps the keys and says whether number i holds the key looked up.
#pragma once

#include "support/hash.hpp"

#include <cstdint>
#include <optional>
#include <vector>

namespace tfsem::explorer {

class CodeIndex {
 public:
  // The number whose key has `hash` and satisfies holds(number), if any.
  template <class Holds>
  [[nodiscard]] std::optional<std::uint32_t> find(std::uint64_t hash, Holds&& holds) const {
    const auto h = mix64(hash), mask = slots_.size() - 1;
    for (auto pos = h & mask; slots_[pos] != 0; pos = (pos + 1) & mask)
      if ((slots_[pos] & ~kNumber) == (h & ~kNumber)) {
        const auto i = static_cast<std::uint32_t>((slots_[pos] & kNumber) - 1);
        if (holds(i)) return i;
      }
    return std::nullopt;
  }
  // Adds the next number (the count added before), whose key has `hash`.
  void push_back(std::uint64_t hash) {
    hashes_.push_back(hash);
    if (hashes_.size() * 2 > slots_.size()) grow();
    else place(hash, static_cast<std::uint32_t>(hashes_.size() - 1));
  }
  [[nodiscard]] std::size_t bytes() const {
    return slots_.capacity() * sizeof(std::uint64_t) + hashes_.capacity() * sizeof(std::uint64_t);
  }

 private:
  static constexpr std::uint64_t kNumber = 0xffffffff;
  std::vector<std::uint64_t> slots_ = std::vector<std::uint64_t>(64, 0);
  std::vector<std::uint64_t> hashes_;  // by number: its key's hash (for grow)

  void place(std::uint64_t hash, std::uint32_t i) {
    const auto h = mix64(hash), mask = slots_.size() - 1;
    auto pos = h & mask;
    while (slots_[pos] != 0) pos = (pos + 1) & mask;
    slots_[pos] = (h & ~kNumber) | (std::uint64_t{i} + 1);
  }
  void grow() {
    slots_.assign(slots_.size() * 2, 0);
    for (std::size_t i = 0; i < hashes_.size(); ++i) place(hashes_[i], static_cast<std::uint32_t>(i));
  }
};

}  // namespace tfsem::explorer
