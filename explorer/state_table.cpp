#include "explorer/state_table.hpp"

#include "semantics/hash.hpp"

namespace tfsem::explorer {

namespace {
// InTransit codes: EMPTY, GO, then variables, then tensors (ids offset by the variable count).
constexpr std::uint32_t kEmpty = 0, kGo = 1, kFirstVar = 2;
}  // namespace

StateTable::StateTable(const Program& p)
    : vars_(p.variables().size()),
      width_(p.variables().size() + p.edges().size()),
      index_(1024, RowHash{this}, RowEq{this}) {}

std::uint32_t StateTable::intern(const Tensor& t) {
  if (auto it = identity_ids_.find(t.identity()); it != identity_ids_.end()) return it->second;
  if (auto it = tensor_ids_.find(t); it != tensor_ids_.end()) return it->second;
  const auto id = static_cast<std::uint32_t>(tensors_.size());
  tensor_ids_.emplace(t, id);
  tensors_.push_back(t);
  identity_ids_.emplace(t.identity(), id);
  return id;
}

std::uint32_t StateTable::code(const Content& c) {
  if (std::holds_alternative<Empty>(c)) return kEmpty;
  if (std::holds_alternative<Go>(c)) return kGo;
  if (const auto* v = std::get_if<VarId>(&c)) return kFirstVar + v->value;
  return kFirstVar + static_cast<std::uint32_t>(vars_) + intern(std::get<Tensor>(c));
}

Content StateTable::decode(std::uint32_t c) const {
  if (c == kEmpty) return Empty{};
  if (c == kGo) return Go{};
  if (c < kFirstVar + vars_) return VarId(c - kFirstVar);
  return tensors_[c - kFirstVar - vars_];
}

std::pair<StateIndex, bool> StateTable::insert(const State& s) {
  const auto start = arena_.size();
  for (const auto& v : s.var_value) arena_.push_back(intern(v));
  for (const auto& c : s.in_transit) arena_.push_back(code(c));
  const auto candidate = static_cast<StateIndex>(start / width_);
  auto [it, inserted] = index_.insert(candidate);
  if (!inserted) arena_.resize(start);
  return {*it, inserted};
}

State StateTable::unpack(StateIndex i) const {
  State s;
  const auto* r = row(i);
  s.var_value.reserve(vars_);
  for (std::size_t x = 0; x < vars_; ++x) s.var_value.push_back(tensors_[r[x]]);
  s.in_transit.reserve(width_ - vars_);
  for (std::size_t e = vars_; e < width_; ++e) s.in_transit.push_back(decode(r[e]));
  return s;
}

std::size_t StateTable::bytes() const {
  // The arena, the hash set's nodes and buckets, and the interned tensors' handles.
  return arena_.capacity() * sizeof(std::uint32_t) + index_.size() * 32 + index_.bucket_count() * 8 +
         tensors_.size() * 64;
}

std::size_t StateTable::RowHash::operator()(StateIndex i) const {
  const auto* r = t->row(i);
  return static_cast<std::size_t>(hash_words(r, t->width_));
}

bool StateTable::RowEq::operator()(StateIndex a, StateIndex b) const {
  return std::equal(t->row(a), t->row(a) + t->width_, t->row(b));
}

}  // namespace tfsem::explorer
