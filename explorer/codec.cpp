#include "explorer/codec.hpp"

#include <algorithm>
#include <bit>
#include <cstdint>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace tfsem::explorer {

namespace {
constexpr Code kFirstVar = 3;  // codes: EMPTY, GO, DEAD, variable handles, then tensors
constexpr std::size_t kDirChunks = std::size_t{1} << 12;
}  // namespace

Codec::Codec(const Semantics& sem)
    : sem_(sem),
      vars_(sem.program().variables().size()),
      directory_(std::make_unique<std::atomic<std::atomic<std::uint32_t>*>[]>(kDirChunks)) {
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
  }
  blocks_.push_back({kRootContext, static_cast<std::uint32_t>(vars_), block_size_[0]});
  width_ = vars_ + block_size_[0];
  if (p.frames().size() > 1) retired_ = static_cast<std::uint32_t>(width_++);
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

std::uint32_t Codec::block(ContextId c) {
  if (const auto col = find(c, 0); col != kNone) return col;
  const std::lock_guard lock(mutex_);
  auto& chunk = directory_[c.index() >> kDirBits];
  if (chunk.load(std::memory_order_relaxed) == nullptr) {
    owned_chunks_.push_back(std::make_unique<std::atomic<std::uint32_t>[]>(kDirChunk));
    chunk.store(owned_chunks_.back().get(), std::memory_order_release);
  }
  auto& entry = chunk.load(std::memory_order_relaxed)[c.index() & (kDirChunk - 1)];
  if (const auto start = entry.load(std::memory_order_relaxed); start != 0) return start - 1;
  const auto start = static_cast<std::uint32_t>(width_.load(std::memory_order_relaxed));
  const auto size = block_size_[sem_.contexts()[c].frame.index()];
  blocks_.push_back({c, start, size});
  width_.store(start + size, std::memory_order_release);
  entry.store(start + 1, std::memory_order_release);
  return start;
}

std::uint32_t Codec::column(Slot s) { return block(s.context) + slot_offset_[s.edge.index()]; }

Codec::Bit Codec::record(NodeId n, ContextId c) {
  const auto k = record_offset_[n.index()];
  return {block(c) + record_base_[n.index()] + k / 8, Code{1} << (k % 8)};
}

void Codec::leave(Row& row, ContextId c) const {
  const auto start = find(c, 0);
  if (start == kNone || start >= row.size()) return;
  const auto f = sem_.contexts()[c].frame;
  const auto& frame = sem_.program().frame(f);
  const auto end = std::min<std::size_t>(start + block_size_[f.index()], row.size());
  Code retired = 0;
  for (auto col = start + frame.slots.size(); col < end; ++col) retired += static_cast<Code>(std::popcount(row[col]));
  if (row.size() <= retired_) row.resize(retired_ + 1, kEmptyCode);
  row[retired_] += retired;
  std::fill(row.begin() + start, row.begin() + static_cast<std::ptrdiff_t>(end), kEmptyCode);
}

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
  if (std::holds_alternative<Go>(c)) return kGoCode;
  if (std::holds_alternative<Dead>(c)) return kDeadCode;
  if (const auto* v = std::get_if<VarId>(&c)) return kFirstVar + v->value;
  return intern(std::get<Tensor>(c));
}

Content Codec::decode_locked(Code c) const {
  if (c == kEmptyCode) return Empty{};
  if (c == kGoCode) return Go{};
  if (c == kDeadCode) return Dead{};
  if (c < kFirstVar + vars_) return VarId(c - kFirstVar);
  return tensors_[c - kFirstVar - vars_];
}

Content Codec::decode(Code c) const {
  const std::lock_guard lock(mutex_);
  return decode_locked(c);
}

void Codec::pack(const State& s, Row& row) {
  // Columns first (they may add blocks, which takes the lock), then codes.
  std::vector<std::pair<std::uint32_t, const Content*>> slots;
  for (const auto& [slot, c] : s.in_transit) slots.emplace_back(column(slot), &c);
  std::vector<Bit> bits;
  for (const auto& t : s.fired) bits.push_back(record(t.node, t.context));
  row.assign(width(), kEmptyCode);
  const std::lock_guard lock(mutex_);
  for (std::size_t x = 0; x < vars_; ++x) row[x] = intern(s.var_value[x]);
  for (const auto& [col, c] : slots) row[col] = encode(*c);
  for (const auto& b : bits) row[b.column] |= b.mask;
  if (retired_ != kNone) row[retired_] = s.retired;
}

State Codec::unpack(std::span<const Code> row) const {
  const std::lock_guard lock(mutex_);
  const auto& p = sem_.program();
  State s;
  s.var_value.reserve(vars_);
  for (std::size_t x = 0; x < vars_; ++x) s.var_value.push_back(std::get<Tensor>(decode_locked(row[x])));
  if (retired_ < row.size()) s.retired = row[retired_];
  std::vector<std::pair<Slot, Code>> slots;  // sorted as codes, decoded in order
  std::vector<Transition> fired;
  for (std::size_t b = 0, n = blocks_.size(); b < n && blocks_[b].start < row.size(); ++b) {
    const auto& block = blocks_[b];
    const auto& frame = p.frame(sem_.contexts()[block.context].frame);
    for (std::size_t i = 0; i < frame.slots.size(); ++i)
      if (const auto col = block.start + i; col < row.size() && row[col] != kEmptyCode)
        slots.emplace_back(Slot{frame.slots[i], block.context}, row[col]);
    for (std::size_t i = 0; i < frame.records.size(); ++i)
      if (const auto col = block.start + frame.slots.size() + i / 8; col < row.size() && (row[col] >> (i % 8) & 1U) != 0)
        fired.push_back({frame.records[i], block.context});
  }
  std::sort(slots.begin(), slots.end());
  std::sort(fired.begin(), fired.end());
  s.in_transit.reserve(slots.size());
  for (const auto& [slot, code] : slots) s.in_transit.emplace_hint(s.in_transit.end(), slot, decode_locked(code));
  s.fired.insert(boost::container::ordered_unique_range, fired.begin(), fired.end());
  return s;
}

std::size_t Codec::bytes() const {
  const std::lock_guard lock(mutex_);
  // Each tensor's handle and its entries in both maps; the blocks and their directory.
  return tensors_.size() * 96 + blocks_.bytes() + owned_chunks_.size() * kDirChunk * sizeof(std::uint32_t) +
         sem_.contexts().bytes();
}

}  // namespace tfsem::explorer
