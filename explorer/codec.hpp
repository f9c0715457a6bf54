// Packed states. Each content of a state (EMPTY, GO, DEAD, a variable handle,
// a tensor) is one 32-bit code, every tensor interned once. A row holds
// VarValue first, then the root context's block: a code for each edge whose
// tokens live in the root frame (InTransit), then the fired records of the
// nodes recorded there, eight to a code. So a graph without loops or calls has
// the fixed layout row[x] = VarValue(x), row[vars + e] = InTransit(e). With
// loops or calls, the number of retired records follows (State::retired),
// then one entry per other context the state holds, the newest first (in
// descending order of their ids: a context's id is above its parent's, so
// the top of a call stack and the latest iteration come first, where the
// firings are): the context's id, then its block (its frame's slots and records). A
// context is in the row exactly when its block holds anything, so a row is as
// long as what the state holds, and a context that leaves (C-FINISHED) takes
// its entry with it. In a graph with a Switch, the path condition (S-PATH)
// follows the fixed part's other columns, as one code (0: empty), each
// distinct path condition interned once. Zeros after the last entry (a copy
// padded to a table's width) read as the row's end. The codec is shared by the search's threads:
// interning takes a lock, and reading a row takes none.
#pragma once

#include "explorer/code_index.hpp"
#include "semantics/semantics.hpp"

#include <boost/container/small_vector.hpp>

#include <algorithm>
#include <cstdint>
#include <mutex>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

namespace tfsem::explorer {

class CheckpointOut;
class CheckpointIn;

using Code = std::uint32_t;
inline constexpr Code kEmptyCode = 0, kGoCode = 1, kDeadCode = 2;
// Codes from here on are no content's: the explorer's effects mark with them
// the tensors a firing moves (S-MOVE) or computes (S-EVAL, explorer/firings.hpp).
inline constexpr Code kFirstMarker = ~Code{0} - 127;
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
  // The fixed part of every row: VarValue, the root block, with loops or
  // calls the retired records, and with a Switch the path condition.
  [[nodiscard]] std::size_t width() const { return fixed_; }
  [[nodiscard]] static std::size_t column(VarId x) { return x.index(); }
  // Slot s's column, for s in the root context.
  [[nodiscard]] std::uint32_t root_column(EdgeId e) const { return static_cast<std::uint32_t>(vars_) + slot_offset_[e.index()]; }
  // The fired record (n, root context): a column and a bit in it.
  struct Bit {
    std::uint32_t column;
    Code mask;
  };
  [[nodiscard]] Bit root_record(NodeId n) const {
    const auto k = record_offset_[n.index()];
    return {static_cast<std::uint32_t>(vars_) + record_base_[n.index()] + k / 8, Code{1} << (k % 8)};
  }
  // The path condition's column; kNone in a graph without a Switch.
  [[nodiscard]] std::uint32_t path_column() const { return path_; }
  // Whether row has bit b set (a fired record).
  [[nodiscard]] static bool set(std::span<const Code> row, Bit b) { return b.column < row.size() && (row[b.column] & b.mask) != 0; }

  // Where context c's block starts in row; kNone when row does not hold c.
  [[nodiscard]] std::uint32_t block(std::span<const Code> row, ContextId c) const {
    if (c == kRootContext) return static_cast<std::uint32_t>(vars_);
    for (auto at = fixed_; at < row.size() && row[at] != 0; at += 1 + size_of(row[at])) {
      if (row[at] == c.value) return static_cast<std::uint32_t>(at + 1);
      if (row[at] < c.value) break;  // entries are in descending order of their ids
    }
    return kNone;
  }
  // Calls f(c, start) for each context c in row other than the root, with
  // where its block starts, in descending order of their ids.
  template <class F>
  void blocks(std::span<const Code> row, F&& f) const {
    for (auto at = fixed_; at < row.size() && row[at] != 0; at += 1 + size_of(row[at]))
      f(ContextId(row[at]), static_cast<std::uint32_t>(at + 1));
  }
  // What row holds in slot s, in c's block if known (block(row, s.context)).
  [[nodiscard]] Code at(std::span<const Code> row, Slot s, std::uint32_t start) const {
    const auto col = std::size_t{start} + slot_offset_[s.edge.index()];
    return start == kNone || col >= row.size() ? kEmptyCode : row[col];
  }
  [[nodiscard]] Code at(std::span<const Code> row, Slot s) const { return at(row, s, block(row, s.context)); }
  [[nodiscard]] Holds holds(std::span<const Code> row, Slot s) const { return holds(at(row, s)); }
  // Whether code is a tensor's (not EMPTY, GO, DEAD or a variable handle).
  [[nodiscard]] bool tensor(Code code) const { return code >= first_tensor_ && code < kFirstMarker; }
  [[nodiscard]] static Holds holds(Code code) {
    return code == kEmptyCode ? Holds::empty : code == kDeadCode ? Holds::dead : Holds::live;
  }
  // Whether (n, c) is among row's fired records, c's block starting at `start`.
  [[nodiscard]] bool fired(std::span<const Code> row, NodeId n, std::uint32_t start) const {
    const auto k = record_offset_[n.index()];
    const auto col = std::size_t{start} + record_base_[n.index()] + k / 8;
    return start != kNone && col < row.size() && (row[col] >> (k % 8) & 1U) != 0;
  }
  [[nodiscard]] bool fired(std::span<const Code> row, NodeId n, ContextId c) const { return fired(row, n, block(row, c)); }
  // Calls f(c) for each context in row other than the root.
  template <class F>
  void contexts(std::span<const Code> row, F&& f) const {
    for (auto at = fixed_; at < row.size() && row[at] != 0; at += 1 + size_of(row[at])) f(ContextId(row[at]));
  }

  // What a column of a row holds, for code that carries rows without
  // reading them (the distributed search's channels, channel.hpp): a
  // content's code, fired records (bits), the count of retired records, a
  // path condition's code, or the id of the context whose block follows.
  enum class Column : std::uint8_t { content, records, retired, path, context };
  // Calls f(i, Column) for each column i of row, in order; frame_of(id) is
  // the frame of the context a row's entry names (the caller's ids: a row
  // whose entries name another process's contexts reads with its map).
  template <class F, class FrameOf>
  void columns(std::span<const Code> row, F&& f, FrameOf&& frame_of) const {
    const auto n = static_cast<std::uint32_t>(row.size());
    const auto block = [&](std::uint32_t start, FrameId frame) {
      const auto slots = frame_slots_[frame.index()], end = std::min(n, start + block_size_[frame.index()]);
      for (auto i = start; i < end; ++i) f(i, i - start < slots ? Column::content : Column::records);
      return start + block_size_[frame.index()];
    };
    for (std::uint32_t x = 0; x < std::min<std::uint32_t>(n, static_cast<std::uint32_t>(vars_)); ++x) f(x, Column::content);
    block(static_cast<std::uint32_t>(vars_), FrameId(std::uint32_t{0}));
    if (retired_ < n) f(retired_, Column::retired);
    if (path_ < n) f(path_, Column::path);
    for (auto at = static_cast<std::uint32_t>(fixed_); at < n && row[at] != 0;) {
      f(at, Column::context);
      at = block(at + 1, frame_of(row[at]));
    }
  }
  [[nodiscard]] FrameId frame_of(Code id) const { return sem_.contexts()[ContextId(id)].frame; }
  // The length of a block of frame f.
  [[nodiscard]] std::uint32_t block_size(FrameId f) const { return block_size_[f.index()]; }
  // The path condition whose code is `code`.
  [[nodiscard]] PathCondition path(Code code) const;
  // The first tensor's code: codes below it (EMPTY, GO, DEAD, the variables'
  // handles) mean the same in every process.
  [[nodiscard]] Code first_tensor() const { return first_tensor_; }

  // ---- Writing a row (a firing, explorer/firings.cpp). ----
  // Sets slot s to `code`, adding s.context's entry if row lacks it.
  void put(Row& row, Slot s, Code code) const;
  // Adds the fired record (n, c).
  void record(Row& row, NodeId n, ContextId c) const;
  // Drops c's entry if its block holds nothing (a context is in the row
  // exactly when it holds something).
  void trim(Row& row, ContextId c) const;
  // Context c leaves row (C-FINISHED): its entry goes, and its fired records
  // are counted among the retired ones.
  void leave(Row& row, ContextId c) const;

  // In a graph of one frame (no loops, no calls): row's shape, all of it that
  // C-ENABLED and the dependency data of partial-order reduction read
  // (Semantics::locally_enabled, Dependence::conflicts, necessary): for each
  // slot, EMPTY, DEAD or live (GO standing for every live content), then the
  // fired records (eight to a code), a byte each.
  void shape(std::span<const Code> row, std::string& out) const;

  void pack(const State& s, Row& row);
  [[nodiscard]] State unpack(std::span<const Code> row) const;
  // The part of row a firing reads: the path condition, InTransit in `slots`
  // alone, and VarValue if `vars` (none for a firing that accesses no
  // variable: its rule reads none, G-REF, and copying hundreds of them would
  // cost more than the firing).
  [[nodiscard]] State unpack(std::span<const Code> row, std::span<const Slot> slots, bool vars) const;
  [[nodiscard]] Content decode(Code c) const;
  // The code of a content, interning a tensor met for the first time.
  [[nodiscard]] Code encode(const Content& c);
  // The code of a path condition, interning one met for the first time.
  [[nodiscard]] Code encode(const PathCondition& p);
  [[nodiscard]] std::size_t bytes() const;
  // The interned tensors and path conditions (checkpoint.hpp), as wire.hpp
  // writes them; restore() interns them again, each with its code, after
  // those this codec interned already (the same, as a search starts).
  void save(CheckpointOut& out) const;
  void restore(CheckpointIn& in);

  static constexpr std::uint32_t kNone = UINT32_MAX;

 private:
  // The size of the block of the context whose id is `id`.
  [[nodiscard]] std::uint32_t size_of(Code id) const { return block_size_[sem_.contexts()[ContextId(id)].frame.index()]; }
  // Where c's entry is, or would be inserted, in row.
  [[nodiscard]] std::size_t entry_at(std::span<const Code> row, ContextId c) const;
  Code encode_locked(const Content& c);  // callers hold mutex_
  Code intern(const Tensor& t);
  [[nodiscard]] Content decode_locked(Code c) const;

  const Semantics& sem_;
  std::size_t vars_;
  std::vector<std::uint32_t> slot_offset_;    // by edge: its column in a block of its frame
  std::vector<std::uint32_t> record_base_;    // by node: where fired records start in a block of its record frame
  std::vector<std::uint32_t> record_offset_;  // by node: its bit among them
  std::vector<std::uint32_t> block_size_;     // by frame
  std::vector<std::uint32_t> frame_slots_;    // by frame: the slots that start its blocks
  std::size_t fixed_;                         // the fixed part's length
  Code first_tensor_;                         // the first tensor's code
  std::uint32_t retired_ = kNone;             // the column of State::retired (with loops or calls)
  std::uint32_t path_ = kNone;                // the column of State::path (with a Switch)

  mutable std::mutex mutex_;
  std::vector<Tensor> tensors_;
  CodeIndex by_value_;  // tensors_ by value
  // The interned tensors by identity: states unpacked from the table share
  // them, so most lookups end here. Interned tensors stay alive in tensors_,
  // so an identity found here cannot belong to another tensor.
  CodeIndex by_identity_;
  // The path conditions met, by code (0: the empty one).
  std::vector<PathCondition> paths_ = std::vector<PathCondition>(1);
  std::unordered_map<PathCondition, Code> path_ids_;
  std::size_t path_literals_ = 0;  // in paths_
  Code intern(const PathCondition& p);
  void read_vars(std::span<const Code> row, State& s) const;  // VarValue; callers hold mutex_
  void read_path(std::span<const Code> row, State& s) const;  // callers hold mutex_
};

// The semantics' view of a packed row (frontier.hpp). It remembers the last
// context it looked up, as the rules read a context's slots one after another;
// past the first other context it looks up, it finds blocks in an index of
// the row's entries, made once, so that a walk over every context of a deep
// stack costs the row's length, not its square.
struct RowView {
  RowView(const Codec& c, std::span<const Code> r) : codec(c), row(r) {}
  const Codec& codec;
  std::span<const Code> row;
  mutable ContextId last{};
  mutable std::uint32_t start = Codec::kNone;
  mutable std::uint32_t misses = 0;
  mutable boost::container::small_vector<std::pair<Code, std::uint32_t>, 8> index;  // (id, start), as in the row
  [[nodiscard]] std::uint32_t block(ContextId c) const {
    if (c != last) {
      last = c;
      start = c == kRootContext || ++misses < 2 ? codec.block(row, c) : indexed(c);
    }
    return start;
  }
  [[nodiscard]] Holds holds(Slot s) const { return Codec::holds(codec.at(row, s, block(s.context))); }
  [[nodiscard]] bool fired(NodeId n, ContextId c) const { return codec.fired(row, n, block(c)); }
  template <class F>
  void contexts(F&& f) const {
    codec.contexts(row, f);
  }

 private:
  [[nodiscard]] std::uint32_t indexed(ContextId c) const {
    if (index.empty()) codec.blocks(row, [&](ContextId k, std::uint32_t at) { index.emplace_back(k.value, at); });
    const auto it = std::lower_bound(index.begin(), index.end(), c.value, [](const auto& e, Code id) { return e.first > id; });
    return it != index.end() && it->first == c.value ? it->second : Codec::kNone;
  }
};

}  // namespace tfsem::explorer
