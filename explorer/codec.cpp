#include "explorer/codec.hpp"

#include "explorer/checkpoint_file.hpp"
#include "explorer/wire.hpp"

#include <algorithm>
#include <map>
#include <stdexcept>
#include <bit>
#include <cstdint>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace tfsem::explorer {

namespace {
constexpr Code kFirstVar = 3;  // codes: EMPTY, GO, DEAD, variable handles, then tensors
}  // namespace

Codec::Codec(const Semantics& sem)
    : sem_(sem), vars_(sem.program().variables().size()), first_tensor_(kFirstVar + static_cast<Code>(vars_)) {
  const auto& p = sem.program();
  slot_offset_.resize(p.edges().size());
  record_base_.resize(p.nodes().size());
  record_offset_.resize(p.nodes().size());
  for (const auto& frame : p.frames()) {
    for (std::size_t i = 0; i < frame.slots.size(); ++i) slot_offset_[frame.slots[i].index()] = static_cast<std::uint32_t>(i);
    for (std::size_t i = 0; i < frame.records.size(); ++i) {
      record_base_[frame.records[i].index()] = static_cast<std::uint32_t>(frame.slots.size());
      record_offset_[frame.records[i].index()] = static_cast<std::uint32_t>(i);
    }
    block_size_.push_back(static_cast<std::uint32_t>(frame.slots.size() + (frame.records.size() + 7) / 8));
    frame_slots_.push_back(static_cast<std::uint32_t>(frame.slots.size()));
  }
  fixed_ = vars_ + block_size_[0];
  if (p.frames().size() > 1) retired_ = static_cast<std::uint32_t>(fixed_++);
  if (sem.branching()) path_ = static_cast<std::uint32_t>(fixed_++);
}

void Codec::shape(std::span<const Code> row, std::string& out) const {
  const std::size_t slots = sem_.program().frames()[0].slots.size(), size = block_size_[0];
  out.resize(size);
  auto* const shape = out.data();
  const auto block = row.subspan(std::min(row.size(), vars_));
  const auto n = std::min(block.size(), size), live = std::min(n, slots);
  // Slots: EMPTY, GO or DEAD as they are, GO for any other (live) content; then the fired records.
  std::size_t i = 0;
#if defined(__SSE2__)
  // Sixteen slots at a time: codes compared unsigned (biased), narrowed to bytes.
  const auto bias = _mm_set1_epi32(INT32_MIN), dead = _mm_set1_epi32(static_cast<int>(kDeadCode ^ 0x80000000U));
  const auto go = _mm_set1_epi32(kGoCode);
  for (; i + 16 <= live; i += 16) {
    __m128i q[4];
    for (std::size_t k = 0; k < 4; ++k) {
      const auto c = _mm_loadu_si128(reinterpret_cast<const __m128i*>(block.data() + i + 4 * k));
      const auto is_live = _mm_cmpgt_epi32(_mm_xor_si128(c, bias), dead);
      q[k] = _mm_or_si128(_mm_andnot_si128(is_live, c), _mm_and_si128(is_live, go));
    }
    _mm_storeu_si128(reinterpret_cast<__m128i*>(shape + i),
                     _mm_packus_epi16(_mm_packs_epi32(q[0], q[1]), _mm_packs_epi32(q[2], q[3])));
  }
#endif
  for (; i < live; ++i) shape[i] = static_cast<char>(block[i] > kDeadCode ? kGoCode : block[i]);
  for (i = live; i < n; ++i) shape[i] = static_cast<char>(block[i]);
  std::fill(shape + n, shape + size, static_cast<char>(kEmptyCode));
}

std::size_t Codec::entry_at(std::span<const Code> row, ContextId c) const {
  auto at = fixed_;
  while (at < row.size() && row[at] != 0 && row[at] > c.value) at += 1 + size_of(row[at]);
  return std::min(at, row.size());
}

void Codec::put(Row& row, Slot s, Code code) const {
  if (row.size() < fixed_) row.resize(fixed_, kEmptyCode);
  auto start = block(row, s.context);
  if (start == kNone) {
    if (code == kEmptyCode) return;
    const auto at = entry_at(row, s.context);
    row.insert(row.begin() + static_cast<std::ptrdiff_t>(at), 1 + size_of(s.context.value), kEmptyCode);
    row[at] = s.context.value;
    start = static_cast<std::uint32_t>(at + 1);
  }
  const auto col = std::size_t{start} + slot_offset_[s.edge.index()];
  if (col >= row.size()) row.resize(start + size_of(row[start - 1]), kEmptyCode);  // a block cut short
  row[col] = code;
}

void Codec::record(Row& row, NodeId n, ContextId c) const {
  if (row.size() < fixed_) row.resize(fixed_, kEmptyCode);
  auto start = block(row, c);
  if (start == kNone) {
    const auto at = entry_at(row, c);
    row.insert(row.begin() + static_cast<std::ptrdiff_t>(at), 1 + size_of(c.value), kEmptyCode);
    row[at] = c.value;
    start = static_cast<std::uint32_t>(at + 1);
  }
  const auto k = record_offset_[n.index()];
  const auto col = std::size_t{start} + record_base_[n.index()] + k / 8;
  if (col >= row.size()) row.resize(start + size_of(row[start - 1]), kEmptyCode);
  row[col] |= Code{1} << (k % 8);
}

void Codec::trim(Row& row, ContextId c) const {
  if (c == kRootContext) return;
  const auto start = block(row, c);
  if (start == kNone) return;
  const auto end = std::min<std::size_t>(start + size_of(c.value), row.size());
  if (std::any_of(row.begin() + start, row.begin() + static_cast<std::ptrdiff_t>(end), [](Code x) { return x != kEmptyCode; })) return;
  row.erase(row.begin() + start - 1, row.begin() + static_cast<std::ptrdiff_t>(end));
}

void Codec::leave(Row& row, ContextId c) const {
  const auto start = block(row, c);
  if (start == kNone) return;
  const auto& frame = sem_.program().frame(sem_.contexts()[c].frame);
  const auto end = std::min<std::size_t>(start + size_of(c.value), row.size());
  Code retired = 0;
  for (auto col = start + frame.slots.size(); col < end; ++col) retired += static_cast<Code>(std::popcount(row[col]));
  row[retired_] += retired;
  row.erase(row.begin() + start - 1, row.begin() + static_cast<std::ptrdiff_t>(end));
}

Code Codec::intern(const Tensor& t) {
  const auto identity = reinterpret_cast<std::uintptr_t>(t.identity());
  if (const auto i = by_identity_.find(identity, [&](std::uint32_t k) { return tensors_[k].identity() == t.identity(); }))
    return first_tensor_ + *i;
  const auto hash = t.hash();
  if (const auto i = by_value_.find(hash, [&](std::uint32_t k) { return tensors_[k] == t; })) return first_tensor_ + *i;
  if (tensors_.size() >= kFirstMarker - first_tensor_) throw std::length_error("codec: 2^32 tensors");
  tensors_.push_back(t);
  by_value_.push_back(hash);
  by_identity_.push_back(identity);
  return first_tensor_ + static_cast<Code>(tensors_.size() - 1);
}

Code Codec::intern(const PathCondition& p) {
  if (p.empty()) return 0;
  const auto [it, fresh] = path_ids_.try_emplace(p, static_cast<Code>(paths_.size()));
  if (fresh) {
    paths_.push_back(p);
    path_literals_ += p.size();
  }
  return it->second;
}

Code Codec::encode(const PathCondition& p) {
  const std::lock_guard lock(mutex_);
  return intern(p);
}

PathCondition Codec::path(Code code) const {
  const std::lock_guard lock(mutex_);
  return paths_.at(code);
}

void Codec::read_vars(std::span<const Code> row, State& s) const {
  s.var_value.reserve(vars_);
  for (std::size_t x = 0; x < vars_; ++x) s.var_value.push_back(std::get<Tensor>(decode_locked(x < row.size() ? row[x] : kEmptyCode)));
}

void Codec::read_path(std::span<const Code> row, State& s) const {
  if (path_ < row.size()) s.path = paths_[row[path_]];
}

Code Codec::encode_locked(const Content& c) {
  if (std::holds_alternative<Empty>(c)) return kEmptyCode;
  if (std::holds_alternative<Go>(c)) return kGoCode;
  if (std::holds_alternative<Dead>(c)) return kDeadCode;
  if (const auto* v = std::get_if<VarId>(&c)) return kFirstVar + v->value;
  return intern(std::get<Tensor>(c));
}

Code Codec::encode(const Content& c) {
  const std::lock_guard lock(mutex_);
  return encode_locked(c);
}

Content Codec::decode_locked(Code c) const {
  if (c == kEmptyCode) return Empty{};
  if (c == kGoCode) return Go{};
  if (c == kDeadCode) return Dead{};
  if (c < first_tensor_) return VarId(c - kFirstVar);
  return tensors_[c - first_tensor_];
}

Content Codec::decode(Code c) const {
  const std::lock_guard lock(mutex_);
  return decode_locked(c);
}

void Codec::pack(const State& s, Row& row) {
  // Each context's block: the root's, then the others newest first.
  std::map<ContextId, Row> blocks;
  auto block_of = [&](ContextId c) -> Row& {
    auto& b = blocks[c];
    if (b.empty()) b.assign(c == kRootContext ? block_size_[0] : size_of(c.value), kEmptyCode);
    return b;
  };
  block_of(kRootContext);
  const std::lock_guard lock(mutex_);
  for (const auto& [slot, c] : s.in_transit) block_of(slot.context)[slot_offset_[slot.edge.index()]] = encode_locked(c);
  for (const auto& t : s.fired) {
    const auto k = record_offset_[t.node.index()];
    block_of(t.context)[record_base_[t.node.index()] + k / 8] |= Code{1} << (k % 8);
  }
  row.clear();
  for (std::size_t x = 0; x < vars_; ++x) row.push_back(intern(s.var_value[x]));
  const auto& root = blocks.begin()->second;
  row.insert(row.end(), root.begin(), root.end());
  if (retired_ != kNone) row.push_back(s.retired);
  if (path_ != kNone) row.push_back(intern(s.path));
  for (auto it = blocks.rbegin(); it->first != kRootContext; ++it) {
    row.push_back(it->first.value);
    row.insert(row.end(), it->second.begin(), it->second.end());
  }
}

State Codec::unpack(std::span<const Code> row) const {
  const std::lock_guard lock(mutex_);
  const auto& p = sem_.program();
  State s;
  read_vars(row, s);
  if (retired_ < row.size()) s.retired = row[retired_];
  read_path(row, s);
  std::vector<std::pair<Slot, Code>> slots;  // sorted as codes, decoded in order
  std::vector<Transition> fired;
  auto read = [&](ContextId c, std::size_t start) {
    const auto& frame = p.frame(sem_.contexts()[c].frame);
    for (std::size_t i = 0; i < frame.slots.size(); ++i)
      if (const auto col = start + i; col < row.size() && row[col] != kEmptyCode) slots.emplace_back(Slot{frame.slots[i], c}, row[col]);
    for (std::size_t i = 0; i < frame.records.size(); ++i)
      if (const auto col = start + frame.slots.size() + i / 8; col < row.size() && (row[col] >> (i % 8) & 1U) != 0)
        fired.push_back({frame.records[i], c});
  };
  read(kRootContext, vars_);
  contexts(row, [&](ContextId c) { read(c, block(row, c)); });
  std::sort(slots.begin(), slots.end());
  std::sort(fired.begin(), fired.end());
  s.in_transit.reserve(slots.size());
  for (const auto& [slot, code] : slots) s.in_transit.emplace_hint(s.in_transit.end(), slot, decode_locked(code));
  s.fired.insert(boost::container::ordered_unique_range, fired.begin(), fired.end());
  return s;
}

State Codec::unpack(std::span<const Code> row, std::span<const Slot> slots, bool vars) const {
  const std::lock_guard lock(mutex_);
  State s;
  if (vars) read_vars(row, s);
  read_path(row, s);
  for (const auto slot : slots)
    if (const auto code = at(row, slot); code != kEmptyCode) s.in_transit.insert_or_assign(slot, decode_locked(code));
  return s;
}

std::size_t Codec::bytes() const {
  const std::lock_guard lock(mutex_);
  // Each tensor's handle and its slots in both indexes, each path
  // condition's literals and its entry, and the contexts met.
  return tensors_.capacity() * sizeof(Tensor) + by_value_.bytes() + by_identity_.bytes() +
         path_literals_ * sizeof(Literal) + path_ids_.size() * 64 + sem_.contexts().bytes();
}
void Codec::save(CheckpointOut& out) const {
  const std::lock_guard lock(mutex_);
  wire::Bytes bytes;
  wire::Writer w(sem_, bytes);
  w.u64(tensors_.size());
  for (const auto& t : tensors_) w.tensor(t);
  w.u64(paths_.size() - 1);  // the empty one is 0 in every codec
  for (std::size_t k = 1; k < paths_.size(); ++k) w.path(paths_[k]);
  out.list(bytes);
}

void Codec::restore(CheckpointIn& in) {
  const auto bytes = in.list<char>(UINT64_MAX);
  const std::lock_guard lock(mutex_);
  wire::TensorCache cache;
  wire::Reader r(sem_, bytes, &cache);
  const auto refused = [&] { return CheckpointError(in.path() + ": corrupted: the interned tensors differ"); };
  const auto tensors = r.u64();
  for (std::uint64_t k = 0; k < tensors; ++k)
    if (intern(r.tensor()) != first_tensor_ + k) throw refused();
  const auto paths = r.u64();
  for (std::uint64_t k = 1; k <= paths; ++k)
    if (intern(r.path()) != k) throw refused();
  if (!r.done()) throw refused();
}

}  // namespace tfsem::explorer
