// Packed states. Each content of a state (EMPTY, GO, DEAD, a variable handle,
// a tensor) is one 32-bit code, every tensor interned once. A row holds
// VarValue first, then one block of columns per execution context met so far:
// a code for each edge whose tokens live in the context's frame (InTransit),
// then the fired records of the nodes recorded there, eight to a code. The
// root context's block comes first, so a graph without loops has the fixed
// layout row[x] = VarValue(x), row[vars + e] = InTransit(e). Blocks are added
// as contexts are met, so rows grow; a row shorter than another reads as if
// padded with zeros (EMPTY, not fired). The codec is shared by the search's
// threads: interning takes a lock, and column lookups are lock-free.
#pragma once

#include "semantics/semantics.hpp"

#include <atomic>
#include <cstdint>
#include <mutex>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

namespace tfsem::explorer {

using Code = std::uint32_t;
inline constexpr Code kEmptyCode = 0, kGoCode = 1, kDeadCode = 2;
using Row = std::vector<Code>;

// Row, at least `width` codes: itself, or a copy into scratch padded with
// EMPTY (a shorter row reads as padded), so that columns below width are read
// without a bound test each.
inline std::span<const Code> padded(std::span<const Code> row, std::size_t width, Row& scratch) {
  if (row.size() >= width) return row;
  scratch.assign(row.begin(), row.end());
  scratch.resize(width, kEmptyCode);
  return scratch;
}

class Codec {
 public:
  explicit Codec(const Semantics& sem);

  [[nodiscard]] const Semantics& semantics() const { return sem_; }
  [[nodiscard]] std::size_t vars() const { return vars_; }
  // Columns allocated so far: the width of a row that has met every context.
  [[nodiscard]] std::size_t width() const { return width_.load(std::memory_order_acquire); }
  [[nodiscard]] static std::size_t column(VarId x) { return x.index(); }
  // Slot s's column, adding its context's block when it has none.
  std::uint32_t column(Slot s);
  // The fired record (n, c): a column and a bit in it.
  struct Bit {
    std::uint32_t column;
    Code mask;
  };
  Bit record(NodeId n, ContextId c);
  // Whether row has bit b set (a fired record).
  [[nodiscard]] static bool set(std::span<const Code> row, Bit b) { return b.column < row.size() && (row[b.column] & b.mask) != 0; }

  // What row holds, without adding blocks (a context without a block holds nothing).
  [[nodiscard]] Holds holds(std::span<const Code> row, Slot s) const {
    const auto col = find(s.context, slot_offset_[s.edge.index()]);
    const auto code = col < row.size() ? row[col] : kEmptyCode;
    return code == kEmptyCode ? Holds::empty : code == kDeadCode ? Holds::dead : Holds::live;
  }
  [[nodiscard]] Code at(std::span<const Code> row, Slot s) const {
    const auto col = find(s.context, slot_offset_[s.edge.index()]);
    return col < row.size() ? row[col] : kEmptyCode;
  }
  [[nodiscard]] bool fired(std::span<const Code> row, NodeId n, ContextId c) const {
    const auto k = record_offset_[n.index()];
    return set(row, {find(c, record_base_[n.index()] + k / 8), Code{1} << (k % 8)});
  }
  // Calls f(c) for each context whose block holds anything in row.
  template <class F>
  void contexts(std::span<const Code> row, F&& f) const {
    for (std::size_t b = 1, n = blocks_.size(); b < n && blocks_[b].start < row.size(); ++b) {
      const auto& block = blocks_[b];
      const auto end = std::min<std::size_t>(block.start + block.size, row.size());
      for (auto col = block.start; col < end; ++col)
        if (row[col] != kEmptyCode) {
          f(block.context);
          break;
        }
    }
  }

  // In a graph of one frame (no loops, no calls): row's shape, all of it that
  // C-ENABLED and the dependency data of partial-order reduction read
  // (Semantics::locally_enabled, conflicts, necessary): for each slot, EMPTY,
  // DEAD or live (GO standing for every live content), then the fired records
  // (eight to a code), a byte each.
  void shape(std::span<const Code> row, std::string& out) const;

  // Context c leaves row (C-FINISHED): its block is emptied, and its fired
  // records counted among the retired ones.
  void leave(Row& row, ContextId c) const;

  void pack(const State& s, Row& row);
  [[nodiscard]] State unpack(std::span<const Code> row) const;
  [[nodiscard]] Content decode(Code c) const;
  [[nodiscard]] std::size_t bytes() const;

 private:
  static constexpr std::uint32_t kNone = UINT32_MAX;
  struct Block {
    ContextId context;
    std::uint32_t start, size;
  };

  // The column at `offset` in context c's block; kNone when c has no block.
  [[nodiscard]] std::uint32_t find(ContextId c, std::uint32_t offset) const {
    if (c == kRootContext) return static_cast<std::uint32_t>(vars_) + offset;
    const auto* chunk = directory_[c.index() >> kDirBits].load(std::memory_order_acquire);
    const auto start = chunk == nullptr ? 0 : chunk[c.index() & (kDirChunk - 1)].load(std::memory_order_acquire);
    return start == 0 ? kNone : start - 1 + offset;
  }
  std::uint32_t block(ContextId c);  // its start, added on first use
  Code encode(const Content& c);     // callers hold mutex_
  Code intern(const Tensor& t);
  [[nodiscard]] Content decode_locked(Code c) const;

  const Semantics& sem_;
  std::size_t vars_;
  std::vector<std::uint32_t> slot_offset_;    // by edge: its column in a block of its frame
  std::vector<std::uint32_t> record_base_;    // by node: where fired records start in a block of its record frame
  std::vector<std::uint32_t> record_offset_;  // by node: its bit among them
  std::vector<std::uint32_t> block_size_;     // by frame
  std::uint32_t retired_ = kNone;             // the column of State::retired, after the root block (with control flow)
  std::atomic<std::size_t> width_;
  // Context -> block start + 1, in chunks that never move (0: no block).
  static constexpr unsigned kDirBits = 12;
  static constexpr std::size_t kDirChunk = std::size_t{1} << kDirBits;
  std::unique_ptr<std::atomic<std::atomic<std::uint32_t>*>[]> directory_;
  AppendOnly<Block> blocks_;
  std::vector<std::unique_ptr<std::atomic<std::uint32_t>[]>> owned_chunks_;

  mutable std::mutex mutex_;
  std::vector<Tensor> tensors_;
  std::unordered_map<Tensor, Code> tensor_ids_;
  // The interned tensors by identity: states unpacked from the table share
  // them, so most lookups end here. Interned tensors stay alive in tensors_,
  // so an identity found here cannot belong to another tensor.
  std::unordered_map<const void*, Code> identity_ids_;
};

// The semantics' view of a packed row (frontier.hpp).
struct RowView {
  const Codec& codec;
  std::span<const Code> row;
  [[nodiscard]] Holds holds(Slot s) const { return codec.holds(row, s); }
  [[nodiscard]] bool fired(NodeId n, ContextId c) const { return codec.fired(row, n, c); }
  template <class F>
  void contexts(F&& f) const {
    codec.contexts(row, f);
  }
};

}  // namespace tfsem::explorer
