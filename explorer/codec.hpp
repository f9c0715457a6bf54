// Packed states: each content of a state (EMPTY, GO, a variable handle, a
// tensor) is one 32-bit code, and each tensor is interned once, so a state is
// one code per variable and per edge: row[x] is VarValue(x), row[vars + e] is
// InTransit(e). The codec is shared by the search's threads; it is consulted
// only when a firing is not yet cached (firings.hpp), so one lock suffices.
#pragma once

#include "semantics/state.hpp"

#include <cstdint>
#include <mutex>
#include <unordered_map>
#include <vector>

namespace tfsem::explorer {

using Code = std::uint32_t;
inline constexpr Code kEmptyCode = 0;

class Codec {
 public:
  explicit Codec(const Program& p);

  [[nodiscard]] std::size_t vars() const { return vars_; }
  [[nodiscard]] std::size_t width() const { return width_; }
  [[nodiscard]] std::size_t slot(EdgeId e) const { return vars_ + e.index(); }
  [[nodiscard]] static std::size_t slot(VarId x) { return x.index(); }

  void pack(const State& s, Code* row);
  [[nodiscard]] State unpack(const Code* row) const;
  [[nodiscard]] Content decode(Code c) const;
  [[nodiscard]] std::size_t bytes() const;

 private:
  Code encode(const Content& c);  // callers hold mutex_
  Code intern(const Tensor& t);
  [[nodiscard]] Content decode_locked(Code c) const;

  std::size_t vars_, width_;
  mutable std::mutex mutex_;
  std::vector<Tensor> tensors_;
  std::unordered_map<Tensor, Code> tensor_ids_;
  // The interned tensors by identity: states unpacked from the table share
  // them, so most lookups end here. Interned tensors stay alive in tensors_,
  // so an identity found here cannot belong to another tensor.
  std::unordered_map<const void*, Code> identity_ids_;
};

}  // namespace tfsem::explorer
