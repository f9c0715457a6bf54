// By stored state, its position in its level's lists (visited.hpp) while it
// is unexpanded: where another arrival at it finds its path count and sleep
// set. Nothing looks an expanded state's position up again, so positions
// live in chunks of 2^16 states, and a chunk goes once it is full and every
// level its states were queued at has been expanded: what a search holds of
// them follows its frontier, not all its states (about 800 MB of
// lost-update-9's 195.6 million).
#pragma once

#include "explorer/checkpoint_file.hpp"
#include "explorer/state_table.hpp"

#include <algorithm>
#include <cstdint>
#include <functional>
#include <memory>
#include <queue>
#include <utility>
#include <vector>

namespace tfsem::explorer {

class QueuePositions {
 public:
  // Room for the next state stored, not queued yet.
  void push_back() {
    if ((size_ & kMask) == 0) {
      if (!chunks_.empty()) full(chunks_.size() - 1);
      chunks_.push_back(std::make_unique<std::uint32_t[]>(kChunk));
      last_level_.push_back(0);
    }
    ++size_;
  }
  // State i is queued at position k of level `level`.
  void set(StateIndex i, std::uint32_t k, std::uint64_t level) {
    chunks_[i >> kBits][i & kMask] = k;
    auto& last = last_level_[i >> kBits];
    last = std::max(last, level);
  }
  // The position of state i, queued and not expanded.
  [[nodiscard]] std::uint32_t operator[](StateIndex i) const { return chunks_[i >> kBits][i & kMask]; }
  // Whether state i's position is still held (it may be queued).
  [[nodiscard]] bool held(StateIndex i) const { return i < size_ && chunks_[i >> kBits] != nullptr; }

  // Every level up to `level` has been expanded: the full chunks whose
  // states were all queued at one of them go.
  void expanded(std::uint64_t level) {
    while (!releasable_.empty() && releasable_.top().first <= level) {
      const auto c = releasable_.top().second;
      releasable_.pop();
      if (last_level_[c] > level) releasable_.emplace(last_level_[c], c);  // a state queued there since (a resumed search)
      else chunks_[c].reset();
    }
  }

  [[nodiscard]] std::size_t bytes() const {
    const auto held = static_cast<std::size_t>(std::count_if(chunks_.begin(), chunks_.end(), [](const auto& c) { return c != nullptr; }));
    return held * kChunk * sizeof(std::uint32_t) + chunks_.size() * (sizeof(void*) + 2 * sizeof(std::uint64_t));
  }
  // What n more states may allocate: the chunks they start.
  [[nodiscard]] std::size_t growth_bytes(std::size_t n) const {
    return ((size_ + n + kChunk - 1) / kChunk - (size_ + kChunk - 1) / kChunk) * (kChunk * sizeof(std::uint32_t) + 64);
  }

  // Each chunk's last level, then whether it is held and, if so, its positions.
  void save(CheckpointOut& out) const {
    for (std::size_t c = 0; c < chunks_.size(); ++c) {
      out.pod(last_level_[c]);
      out.pod<std::uint8_t>(chunks_[c] != nullptr ? 1 : 0);
      if (chunks_[c] != nullptr) out.raw(chunks_[c].get(), kChunk * sizeof(std::uint32_t));
    }
  }
  // Into an empty one, for `states` states.
  void restore(CheckpointIn& in, std::size_t states) {
    for (std::size_t c = 0; c * kChunk < states; ++c) {
      last_level_.push_back(in.pod<std::uint64_t>());
      if (c > 0) full(c - 1);
      auto& chunk = chunks_.emplace_back();
      if (in.pod<std::uint8_t>() == 0) {
        // Only a full chunk goes; the last one takes the states stored next.
        if ((c + 1) * kChunk > states) throw CheckpointError(in.path() + ": corrupted: the positions of unexpanded states");
        continue;
      }
      chunk = std::make_unique<std::uint32_t[]>(kChunk);
      in.raw(chunk.get(), kChunk * sizeof(std::uint32_t));
    }
    size_ = states;
  }

 private:
  static constexpr unsigned kBits = 16;
  static constexpr std::size_t kChunk = std::size_t{1} << kBits, kMask = kChunk - 1;
  void full(std::size_t c) { releasable_.emplace(last_level_[c], c); }

  std::size_t size_ = 0;
  std::vector<std::unique_ptr<std::uint32_t[]>> chunks_;  // null once let go
  std::vector<std::uint64_t> last_level_;                  // by chunk: the highest level a state of it was queued at
  // The full chunks held, by last level, lowest first (an entry may be lower than its chunk's last level: expanded() looks again).
  using Entry = std::pair<std::uint64_t, std::size_t>;
  std::priority_queue<Entry, std::vector<Entry>, std::greater<>> releasable_;
};

}  // namespace tfsem::explorer
