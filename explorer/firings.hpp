// Firings on packed states, cached. By S-FRAME, firing n changes only the
// edges incident on n and, for Read and Assign-f, VarValue(x); what it writes
// there depends only on what n reads: its incoming edges and VarValue(x). So
// the effect of firing n is computed once per distinct input, by the semantics
// itself (Semantics::fire on the unpacked state), and then replayed on rows.
// Each computed effect is checked against S-FRAME. One Firings per thread;
// they share the codec.
#pragma once

#include "explorer/codec.hpp"
#include "semantics/semantics.hpp"

#include <vector>

namespace tfsem::explorer {

class Firings {
 public:
  Firings(const Semantics& sem, Codec& codec);

  [[nodiscard]] const Semantics& semantics() const { return sem_; }
  [[nodiscard]] Codec& codec() const { return codec_; }
  [[nodiscard]] std::size_t width() const { return codec_.width(); }

  [[nodiscard]] bool empty(const Code* row, EdgeId e) const { return row[codec_.slot(e)] == kEmptyCode; }
  [[nodiscard]] bool enabled(const Code* row, NodeId n) const {
    return sem_.enabled_by(n, [&](EdgeId d) { return empty(row, d); });
  }
  void enabled_nodes(const Code* row, std::vector<NodeId>& out) const;
  void fired(const Code* row, std::vector<bool>& out) const {
    sem_.fired_by([&](EdgeId d) { return empty(row, d); }, out);
  }

  // How many states firing n in row can lead to (one, unless f is a relation).
  // Precondition: enabled(row, n).
  std::size_t results(const Code* row, NodeId n) { return effect(row, n).count; }
  // Writes the r-th of them to out (width codes; out may be row).
  void fire(const Code* row, NodeId n, std::size_t r, Code* out);
  // Semantics::overwrites of n, enabled in row.
  bool overwrites(const Code* row, NodeId n) { return effect(row, n).overwrites; }

  [[nodiscard]] std::size_t bytes() const {
    return effects_.capacity() * sizeof(Effect) + (keys_.capacity() + writes_.capacity()) * sizeof(Code) +
           slots_.capacity() * sizeof(std::uint32_t);
  }

 private:
  struct Frame {
    std::vector<std::uint32_t> reads;   // slots firing depends on
    std::vector<std::uint32_t> writes;  // slots firing may change
  };
  // One computed firing: node n, with the codes of its reads at keys_[key..],
  // has count results, each writing its frame's slots from writes_[writes..].
  struct Effect {
    std::uint64_t hash;
    std::uint32_t node, key, writes, count;
    bool overwrites;
  };

  const Effect& effect(const Code* row, NodeId n);
  [[nodiscard]] std::uint64_t key_hash(const Code* row, NodeId n) const;
  void compute(const Code* row, NodeId n, Effect& e);
  void grow();

  const Semantics& sem_;
  Codec& codec_;
  std::vector<Frame> frames_;  // by node
  // An open-addressing table of effects: slots_ holds index + 1 into effects_.
  std::vector<Effect> effects_;
  std::vector<Code> keys_, writes_;
  std::vector<std::uint32_t> slots_ = std::vector<std::uint32_t>(256, 0);
};

}  // namespace tfsem::explorer
