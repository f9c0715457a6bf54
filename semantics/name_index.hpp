// Interned names: the index from the names of a table's entries (a program's
// nodes, edges, variables) to their ids, the entries' positions. It stores
// only ids and hashes, in one open-addressed array; the names stay in the
// table, read through `name_of(id)` when a probe meets an equal hash. A million
// names cost 16 MiB and no allocation each, where a map from strings copies
// every name into a node of its own.
#pragma once

#include "support/hash.hpp"
#include "support/prefetch.hpp"

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

namespace tfsem {

class NameIndex {
 public:
  // A name's hash, which a loop over many names may compute once and pass
  // to prefetch, find and insert.
  static std::uint32_t hash(std::string_view name) { return static_cast<std::uint32_t>(hash_name(name)); }

  // Room for n names without growing.
  void reserve(std::size_t n) {
    std::size_t want = 16;
    while (3 * want < 4 * n) want *= 2;
    if (want > slots_.size()) rehash(want);
  }

  // The id of `name`, if it has one; name_of(id) gives an entry's name.
  template <class NameOf>
  [[nodiscard]] std::optional<std::uint32_t> find(std::string_view name, NameOf&& name_of) const {
    return find(name, hash(name), name_of);
  }
  // The same, given the name's hash.
  template <class NameOf>
  [[nodiscard]] std::optional<std::uint32_t> find(std::string_view name, std::uint32_t h, NameOf&& name_of) const {
    if (slots_.empty()) return std::nullopt;
    for (std::size_t i = h & mask();; i = (i + 1) & mask()) {
      const auto& s = slots_[i];
      if (s.id == kEmpty) return std::nullopt;
      if (s.hash == h && name_of(s.id) == name) return s.id;
    }
  }

  // Starts loading the slot where a probe for the name of hash h begins: a
  // loop that looks up many names issues this some names ahead, so that the
  // table's cache misses, which dominate a large one's lookups, overlap.
  void prefetch(std::uint32_t h) const {
    if (!slots_.empty()) tfsem::prefetch(&slots_[h & mask()]);
  }

  // Gives `name` the id `id`; false, and nothing changed, when it has one already.
  template <class NameOf>
  bool insert(std::string_view name, std::uint32_t id, NameOf&& name_of) {
    return insert(name, hash(name), id, name_of);
  }
  // The same, given the name's hash.
  template <class NameOf>
  bool insert(std::string_view name, std::uint32_t h, std::uint32_t id, NameOf&& name_of) {
    if (4 * (size_ + 1) > 3 * slots_.size()) rehash(slots_.empty() ? 16 : 2 * slots_.size());
    for (std::size_t i = h & mask();; i = (i + 1) & mask()) {
      auto& s = slots_[i];
      if (s.id == kEmpty) {
        s = {h, id};
        ++size_;
        return true;
      }
      if (s.hash == h && name_of(s.id) == name) return false;
    }
  }

 private:
  static constexpr std::uint32_t kEmpty = ~std::uint32_t{0};
  struct Slot {
    std::uint32_t hash = 0;
    std::uint32_t id = kEmpty;
  };
  std::vector<Slot> slots_;  // a power of two of them, at most three quarters full
  std::size_t size_ = 0;

  [[nodiscard]] std::size_t mask() const { return slots_.size() - 1; }
  void rehash(std::size_t size) {
    std::vector<Slot> old(size);
    old.swap(slots_);
    for (const auto& s : old)
      if (s.id != kEmpty) {
        std::size_t i = s.hash & mask();
        while (slots_[i].id != kEmpty) i = (i + 1) & mask();
        slots_[i] = s;
      }
  }
};

}  // namespace tfsem
