#include "explorer/codec.hpp"

#include "semantics/program.hpp"

namespace tfsem::explorer {

namespace {
// Codes: EMPTY, GO, then variable handles, then tensors (ids offset by the variable count).
constexpr Code kGo = 1, kFirstVar = 2;
}  // namespace

Codec::Codec(const Program& p) : vars_(p.variables().size()), width_(p.variables().size() + p.edges().size()) {}

Code Codec::intern(const Tensor& t) {
  const auto first_tensor = kFirstVar + static_cast<Code>(vars_);
  if (auto it = identity_ids_.find(t.identity()); it != identity_ids_.end()) return it->second;
  if (auto it = tensor_ids_.find(t); it != tensor_ids_.end()) return it->second;
  const auto id = first_tensor + static_cast<Code>(tensors_.size());
  tensor_ids_.emplace(t, id);
  tensors_.push_back(t);
  identity_ids_.emplace(t.identity(), id);
  return id;
}

Code Codec::encode(const Content& c) {
  if (std::holds_alternative<Empty>(c)) return kEmptyCode;
  if (std::holds_alternative<Go>(c)) return kGo;
  if (const auto* v = std::get_if<VarId>(&c)) return kFirstVar + v->value;
  return intern(std::get<Tensor>(c));
}

Content Codec::decode_locked(Code c) const {
  if (c == kEmptyCode) return Empty{};
  if (c == kGo) return Go{};
  if (c < kFirstVar + vars_) return VarId(c - kFirstVar);
  return tensors_[c - kFirstVar - vars_];
}

Content Codec::decode(Code c) const {
  const std::lock_guard lock(mutex_);
  return decode_locked(c);
}

void Codec::pack(const State& s, Code* row) {
  const std::lock_guard lock(mutex_);
  for (std::size_t x = 0; x < vars_; ++x) row[x] = intern(s.var_value[x]);
  for (std::size_t e = 0; e < s.in_transit.size(); ++e) row[vars_ + e] = encode(s.in_transit[e]);
}

State Codec::unpack(const Code* row) const {
  const std::lock_guard lock(mutex_);
  State s;
  s.var_value.reserve(vars_);
  for (std::size_t x = 0; x < vars_; ++x) s.var_value.push_back(std::get<Tensor>(decode_locked(row[x])));
  s.in_transit.reserve(width_ - vars_);
  for (std::size_t e = vars_; e < width_; ++e) s.in_transit.push_back(decode_locked(row[e]));
  return s;
}

std::size_t Codec::bytes() const {
  const std::lock_guard lock(mutex_);
  return tensors_.size() * 96;  // the handle, and its entries in both maps
}

}  // namespace tfsem::explorer
