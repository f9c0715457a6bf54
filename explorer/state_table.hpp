// Compact storage of explored states: each tensor is interned once and
// referred to by a 32-bit id, so a state is one small integer per variable and
// per edge, kept in a flat arena and found through a hash set.
#pragma once

#include "semantics/semantics.hpp"

#include <cstdint>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace tfsem::explorer {

using StateIndex = std::uint32_t;

class StateTable {
 public:
  explicit StateTable(const Program& p);

  // Returns the state's index and whether it was new.
  std::pair<StateIndex, bool> insert(const State& s);
  [[nodiscard]] State unpack(StateIndex i) const;
  [[nodiscard]] std::size_t size() const { return arena_.size() / width_; }
  [[nodiscard]] std::size_t bytes() const;

 private:
  std::uint32_t code(const Content& c);
  std::uint32_t intern(const Tensor& t);
  [[nodiscard]] Content decode(std::uint32_t code) const;
  [[nodiscard]] const std::uint32_t* row(StateIndex i) const { return arena_.data() + std::size_t{i} * width_; }

  struct RowHash {
    const StateTable* t;
    std::size_t operator()(StateIndex i) const;
  };
  struct RowEq {
    const StateTable* t;
    bool operator()(StateIndex a, StateIndex b) const;
  };

  std::size_t vars_, width_;
  std::vector<Tensor> tensors_;
  std::unordered_map<Tensor, std::uint32_t> tensor_ids_;
  // The interned tensors by identity: states unpacked from the table share
  // them, so most lookups end here. Interned tensors stay alive in tensors_,
  // so an identity found here cannot belong to another tensor.
  std::unordered_map<const void*, std::uint32_t> identity_ids_;
  std::vector<std::uint32_t> arena_;  // row i: VarValue ids, then InTransit codes
  std::unordered_set<StateIndex, RowHash, RowEq> index_;
};

}  // namespace tfsem::explorer
