// Firings on packed states, cached. By S-FRAME, firing a transition t = (n, c)
// changes only the slots of n's edges in their contexts, n's fired record and,
// for Read, Assign-f and a dereferencing function (S-DEREF), VarValue(x), and
// for a Switch the path condition (S-PATH); what it writes there depends only
// on what t reads: its incoming slots, VarValue(x) and the path condition,
// whatever its context. So the effect of firing node n is
// computed once per distinct input, by the semantics itself (Semantics::apply
// on the part of the state it reads), checked against S-FRAME, and then
// replayed on rows, in any context. A tensor the firing only moves (S-MOVE:
// a loop's Enter, Merge and Switch, a Call, an Identity) is not part of what
// it reads: one effect, computed on a stand-in and checked on the first
// tensor met, writes whichever tensor the row holds there. A function's
// firing on other tensors (S-EVAL) differs only in the results it writes and
// the arguments it leaves in place: its effect on new arguments is the one on
// any arguments, with f evaluated alone, checked against the semantics'
// firing on the second arguments met.
// So a loop whose values change in every iteration evaluates its arithmetic
// afresh, and computes no firing again. After a firing, the contexts that no
// token can reach any more leave the row (C-FINISHED). One Firings per
// thread; they share the codec.
#pragma once

#include "explorer/codec.hpp"

#include <memory>
#include <span>
#include <vector>

namespace tfsem::explorer {

class Firings {
 public:
  // A firing whose result starts a context beyond the bounds (an iteration
  // past --max-iterations, a call past --max-depth) is marked (exceeds)
  // rather than taken.
  Firings(const Semantics& sem, Codec& codec, Bounds bounds);
  Firings(const Firings&) = delete;  // effects point at this one's frames
  Firings& operator=(const Firings&) = delete;

  [[nodiscard]] const Semantics& semantics() const { return sem_; }
  [[nodiscard]] Codec& codec() const { return codec_; }
  [[nodiscard]] RowView view(std::span<const Code> row) const { return {codec_, row}; }

  // C-ENABLED on a row: every enabled transition and what the state's loops are doing.
  void frontier(std::span<const Code> row, Frontier& out) const { sem_.frontier(view(row), out); }

  // The effect of firing t in row, looked up (computed the first time) once
  // and fired as often as needed; it stays valid as the cache grows, except
  // that one evaluated for its arguments (S-EVAL) past kMaxEvaluated, which
  // has one result, is made afresh and lives until the next find().
  // Precondition: t is enabled in row.
  struct Found {
    Transition t;
    std::uint32_t effect;
    std::uint32_t results;  // how many states firing t can lead to (one, unless it is a relation)
  };
  Found find(std::span<const Code> row, Transition t) {
    const auto& e = effect(row, t);
    return {t, &e == &transient_ ? kTransient : static_cast<std::uint32_t>(&e - effects_.data()), e.count};
  }
  // Starts loading the slot where find(row, t) will look first, for a
  // caller that knows its next lookups before it makes them (a state's moves).
  void prefetch(std::span<const Code> row, Transition t);
  // Writes the r-th result of firing `found` in row to out (out may be row),
  // without the contexts that leave it (C-FINISHED), unless `finish` is
  // false. Precondition: row holds what find() read (it is that row, or a
  // copy). Returns the loop or function frame of the context beyond the
  // bounds it starts, if any (exceeds).
  FrameId fire(std::span<const Code> row, Found found, std::size_t r, Row& out, bool finish = true);
  // Dependence::overwrites of t, enabled in row.
  bool overwrites(std::span<const Code> row, Transition t) { return effect(row, t).overwrites; }
  // Whether t fires with a DEAD input (C-DEAD): then it accesses no variable.
  // Given a view (of a row), which may serve many lookups.
  [[nodiscard]] bool dead(const RowView& v, Transition t) const;

  // How many firings the semantics computed (Semantics::apply, checks
  // included); every other effect was replayed or evaluated (S-EVAL).
  [[nodiscard]] std::size_t computed() const { return computed_; }

  [[nodiscard]] std::size_t bytes() const {
    return effects_.capacity() * sizeof(Effect) + (keys_.capacity() + writes_.capacity()) * sizeof(Code) +
           slots_.capacity() * sizeof(std::uint64_t) + frames_.size() * sizeof(Frame);
  }

 private:
  // What a node's firing reads and writes, in any context: its incoming
  // slots (data, then control), its outgoing ones, then VarValue(x) if it
  // accesses x, then the path condition if it branches; the reads are the
  // incoming slots, VarValue(x) and the path condition. A node of
  // the root frame whose edges all carry the root frame's tokens (every node
  // of a graph without loops or calls) has them at fixed columns.
  struct Frame {
    std::uint64_t seed = 0;  // the node's hash, where every key's hash starts
    std::uint32_t inputs = 0, slots = 0;
    bool var = false;
    bool path = false;
    bool fixed = false;
    std::vector<std::uint32_t> reads, writes;  // fixed: the columns
    Codec::Bit record{};                       // fixed: the fired record's bit
    std::uint32_t end = 0;                     // fixed: one past the largest column
    std::vector<std::uint32_t> moved;          // the positions among the reads of the tensors it moves (S-MOVE)
    std::uint64_t moved_mask = 0;              // the same positions, as bits
    std::vector<bool> keeps;                   // by slot: a live token there keeps its context (Semantics::keeps_context)
    std::uint32_t arguments = 0;               // S-EVAL: its data inputs, if it evaluates f alone, else 0
  };
  // One computed firing: node n, with the codes of its reads as its key, has
  // count results, each writing its frame's slots (and VarValue(x)) from
  // writes_[writes..]. A key of up to kInline codes lies in the effect, a
  // longer one at keys_[key..]; an effect fills one cache line, so that a
  // lookup that finds it reads its slot and that line (docs/explorer.md).
  static constexpr std::size_t kInline = 6;
  // In a key: kAnyTensor for a tensor the firing moves (S-MOVE), or for
  // each argument of the effect on any arguments (S-EVAL). In an effect's
  // writes: kMoved + k for the k-th tensor it moves (Frame::moved), as the
  // row it fires in holds it; in an effect on any arguments, kEvaluated + j
  // for the j-th result of f and kArgument + i for the i-th argument. The
  // S-EVAL markers are replaced as an effect for the row's arguments is made
  // from it, so no effect that fires holds one.
  static constexpr std::size_t kMaxMoved = 32, kMaxResults = 32, kMaxArguments = 32;
  static constexpr Code kMoved = kFirstMarker, kAnyTensor = kMoved + kMaxMoved, kEvaluated = kAnyTensor + 1,
                        kArgument = kEvaluated + kMaxResults;
  static_assert(kArgument + kMaxArguments - 1 <= ~Code{0});
  struct alignas(64) Effect {
    std::uint64_t hash;
    const Frame* frame;
    NodeId node;
    std::uint32_t writes, count;
    std::uint32_t key;  // into keys_, read only for a key longer than kInline
    bool overwrites;
    bool moves;  // some write is kMoved + k
    bool keeps;  // every result leaves a live token in t's context, which therefore stays (C-FINISHED)
    bool evaluates;  // S-EVAL: an effect on any arguments with some kEvaluated + j among its writes
    bool checked;    // S-EVAL: an effect on any arguments made for other arguments was checked
    Code inline_key[kInline];
    // Its key, given its number of reads.
    [[nodiscard]] const Code* key_codes(std::size_t reads, const std::vector<Code>& keys) const {
      return reads <= kInline ? inline_key : keys.data() + key;
    }
  };
  static_assert(sizeof(Effect) == 64);
  // The cache keeps this many effects evaluated for their arguments (S-EVAL);
  // past them, such an effect is evaluated at each find and kept as the
  // transient one (Found::effect kTransient): a loop whose values change in
  // every iteration meets each of them once, and would fill the cache with
  // effects no firing looks up again.
  static constexpr std::size_t kMaxEvaluated = std::size_t{1} << 14;
  static constexpr std::uint32_t kTransient = UINT32_MAX;
  // A slot: 0 when free, else the effect's index + 1 in kIndex, and its hash's high half above.
  static constexpr std::uint64_t kIndex = 0xffffffff;
  static std::uint64_t slot(std::uint64_t hash, std::size_t index) { return (hash & ~kIndex) | (index + 1); }

  [[nodiscard]] static std::size_t extra(const Frame& f) { return (f.var ? 1 : 0) + (f.path ? 1 : 0); }
  [[nodiscard]] static std::size_t reads(const Frame& f) { return f.inputs + extra(f); }
  // The slots of t's frame in its context, into resolved_ (kept for the next call with t).
  void resolve(Transition t);
  // The codes t reads in row, into key_.
  void read(std::span<const Code> row, Transition t, const Frame& f);
  // The code of t's k-th moved tensor in row (Frame::moved), t resolved.
  [[nodiscard]] Code moved(std::span<const Code> row, Transition t, const Frame& f, std::size_t k) const;
  const Effect& effect(std::span<const Code> row, Transition t);
  [[nodiscard]] static std::uint64_t absorb(std::uint64_t h, Code code) { return (h ^ code) * 0xff51afd7ed558ccdULL; }
  [[nodiscard]] static std::uint64_t hash(const Frame& f, std::span<const Code> key);
  // The effect of node n with reads `key` (hashed h), if there is one yet.
  [[nodiscard]] const Effect* lookup(NodeId n, std::span<const Code> key, std::uint64_t h) const;
  // A new effect of node n for `key`, its writes not yet made.
  [[nodiscard]] Effect blank(NodeId n, const Frame& f, std::span<const Code> key, std::uint64_t h);
  const Effect& insert(const Effect& e);
  void place(std::size_t index);  // effects_[index] into slots_
  void compute(std::span<const Code> row, Transition t, const Frame& f, Effect& e);
  // S-EVAL: e, for t whose reads key_ hold tensors as its arguments, from
  // the effect on any arguments; made from e, computed, the first time.
  // Returns whether e was made from the effect on any arguments (rather than computed).
  bool evaluate(std::span<const Code> row, Transition t, const Frame& f, Effect& e);
  // e, just made at the end of keys_ and writes_, as the transient effect instead.
  const Effect& transient(Effect e);
  // The writes of every successor of s by t, appended to out, a stand-in
  // (probes_) written as its marker; returns how many successors.
  std::uint32_t successors(const State& s, Transition t, const Frame& f, std::vector<Code>& out);
  void grow();

  const Semantics& sem_;
  Codec& codec_;
  Bounds bounds_;
  std::vector<Frame> frames_;  // by node
  // An open-addressing table of effects (slot()).
  std::vector<Effect> effects_;
  std::vector<Code> keys_, writes_;
  std::vector<std::uint64_t> slots_ = std::vector<std::uint64_t>(256, 0);
  std::vector<Code> key_;              // the codes of the last read()
  Transition resolved_t_{NodeId{}, ContextId{}};
  std::vector<Slot> resolved_;         // resolve(): t's slots in its context
  ContextId resolved_record_{};        // and its record's context
  std::vector<ContextId> work_;        // fire(): the contexts that may leave
  std::vector<Tensor> probes_;         // the stand-ins for moved tensors, by k
  std::vector<Code> moved_, concrete_;  // fire(): the moved tensors' codes; compute(): a check's writes
  std::vector<Code> any_;              // evaluate(): key_ with kAnyTensor for the arguments
  std::size_t computed_ = 0;           // successors(): the firings the semantics computed
  std::size_t evaluated_ = 0;          // the cached effects made from an effect on any arguments
  Effect transient_{};                 // transient(): the last effect past kMaxEvaluated,
  std::vector<Code> transient_writes_;  // and its writes
};

}  // namespace tfsem::explorer
