// Firings on packed states, cached. By S-FRAME, firing a transition t = (n, c)
// changes only the slots of n's edges in their contexts, n's fired record and,
// for Read, Assign-f and a dereferencing function (S-DEREF), VarValue(x); what it writes there depends only on
// what t reads: its incoming slots and VarValue(x). So the effect of firing t
// is computed once per distinct input, by the semantics itself
// (Semantics::fire on the unpacked state), and then replayed on rows. Each
// computed effect is checked against S-FRAME. One Firings per thread; they
// share the codec.
#pragma once

#include "explorer/codec.hpp"

#include <memory>
#include <span>
#include <unordered_map>
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
  // and fired as often as needed; it stays valid as the cache grows.
  // Precondition: t is enabled in row.
  struct Found {
    std::uint32_t effect;
    std::uint32_t results;  // how many states firing t can lead to (one, unless it is a relation)
  };
  Found find(std::span<const Code> row, Transition t) {
    const auto& e = effect(row, t);
    return {static_cast<std::uint32_t>(&e - effects_.data()), e.count};
  }
  // Starts loading the slot where find(row, t) will look first, for a
  // caller that knows its next lookups before it makes them (a state's
  // moves). Computes t's frame on first use, as find would.
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
  [[nodiscard]] bool dead(std::span<const Code> row, Transition t) const;

  [[nodiscard]] std::size_t bytes() const {
    return effects_.capacity() * sizeof(Effect) + (keys_.capacity() + writes_.capacity()) * sizeof(Code) +
           slots_.capacity() * sizeof(std::uint64_t) + (root_frames_.size() + frames_.size()) * sizeof(Frame);
  }

 private:
  // The columns a transition reads and may write, and its fired record.
  struct Frame {
    std::uint64_t seed = 0;  // the transition's hash, where every key's hash starts
    std::vector<std::uint32_t> reads;
    std::vector<std::uint32_t> writes;
    Codec::Bit record;
    std::uint32_t end = 0;  // one past the largest column
    std::vector<std::uint32_t> beyond;  // the columns of its outputs in a context beyond the bounds,
    FrameId beyond_frame{};             // and that context's frame
  };
  // One computed firing: transition t, with the codes of its reads as its
  // key, has count results, each writing its frame's columns from
  // writes_[writes..]. A key of up to kInline codes lies in the effect, a
  // longer one at keys_[key..]; an effect fills one cache line, so that a
  // lookup that finds it reads its slot and that line (docs/explorer.md).
  static constexpr std::size_t kInline = 5;
  struct alignas(64) Effect {
    std::uint64_t hash;
    Transition t;
    const Frame* frame;  // t's (frames never move)
    std::uint32_t writes, count;
    std::uint32_t key;  // into keys_, read only for a key longer than kInline
    FrameId exceeds;
    bool overwrites;
    Code inline_key[kInline];
    // Its key, given its frame's number of reads.
    [[nodiscard]] const Code* key_codes(std::size_t reads, const std::vector<Code>& keys) const {
      return reads <= kInline ? inline_key : keys.data() + key;
    }
  };
  static_assert(sizeof(Effect) == 64);
  // A slot: 0 when free, else the effect's index + 1 in kIndex, and its hash's high half above.
  static constexpr std::uint64_t kIndex = 0xffffffff;
  static std::uint64_t slot(std::uint64_t hash, std::size_t index) { return (hash & ~kIndex) | (index + 1); }

  const Frame& frame(Transition t) {  // computed on first use
    if (t.context == kRootContext)
      if (const auto* f = root_frames_[t.node.index()].get()) return *f;
    return new_frame(t);
  }
  const Frame& new_frame(Transition t);  // or one of a context other than the root
  const Effect& effect(std::span<const Code> row, Transition t);
  // Precondition: row holds every column of f (f.end codes at least).
  [[nodiscard]] static std::uint64_t key_hash(std::span<const Code> row, const Frame& f);
  void compute(std::span<const Code> row, Transition t, const Frame& f, Effect& e);
  void grow();

  const Semantics& sem_;
  Codec& codec_;
  Bounds bounds_;
  std::vector<std::unique_ptr<Frame>> root_frames_;   // by node, for the root context
  std::unordered_map<Transition, Frame> frames_;      // the others
  // An open-addressing table of effects (slot()).
  std::vector<Effect> effects_;
  std::vector<Code> keys_, writes_;
  std::vector<std::uint64_t> slots_ = std::vector<std::uint64_t>(256, 0);
  Row padded_;  // a row shorter than a frame, padded with EMPTY
  std::vector<ContextId> work_;  // fire(): the contexts that may leave
};

}  // namespace tfsem::explorer
