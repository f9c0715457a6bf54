// An append-only array whose published elements can be read without a lock
// while another thread appends: elements live in fixed-size chunks that never
// move. Appending needs external mutual exclusion; a reader may read index i
// once it learned i through a synchronizing hand-off (the appender's lock, a
// thread join), as every user here does.
#pragma once

#include <atomic>
#include <algorithm>
#include <cstddef>
#include <memory>
#include <stdexcept>

namespace tfsem {

template <class T, unsigned ChunkBits = 12, std::size_t MaxChunks = std::size_t{1} << 12>
class AppendOnly {
 public:
  static constexpr std::size_t kChunk = std::size_t{1} << ChunkBits;

  // Room for max_chunks chunks of kChunk elements.
  explicit AppendOnly(std::size_t max_chunks = MaxChunks)
      : max_chunks_(max_chunks), chunks_(std::make_unique<std::atomic<T*>[]>(max_chunks)) {}
  AppendOnly(const AppendOnly&) = delete;
  AppendOnly& operator=(const AppendOnly&) = delete;
  ~AppendOnly() {
    for (std::size_t c = 0; c * kChunk < size_.load(std::memory_order_relaxed); ++c) delete[] chunks_[c].load();
  }

  [[nodiscard]] const T& operator[](std::size_t i) const {
    return chunks_[i >> ChunkBits].load(std::memory_order_acquire)[i & (kChunk - 1)];
  }
  T& operator[](std::size_t i) { return chunks_[i >> ChunkBits].load(std::memory_order_acquire)[i & (kChunk - 1)]; }
  [[nodiscard]] std::size_t size() const { return size_.load(std::memory_order_acquire); }

  // Appends v; returns its index. Callers serialize appends.
  std::size_t push_back(T v) {
    const auto i = size_.load(std::memory_order_relaxed);
    const auto c = i >> ChunkBits;
    if (c >= max_chunks_) throw std::length_error("append-only array full");
    if ((i & (kChunk - 1)) == 0) chunks_[c].store(new T[kChunk], std::memory_order_release);
    chunks_[c].load(std::memory_order_relaxed)[i & (kChunk - 1)] = std::move(v);
    size_.store(i + 1, std::memory_order_release);
    return i;
  }

  // Calls f(data, n) for each chunk's n elements, in order (saving them whole).
  template <class F>
  void each_chunk(F&& f) const {
    const auto n = size();
    for (std::size_t c = 0; c * kChunk < n; ++c) f(static_cast<const T*>(chunks_[c].load(std::memory_order_acquire)), std::min(kChunk, n - c * kChunk));
  }

  [[nodiscard]] std::size_t bytes() const { return (size() + kChunk - 1) / kChunk * kChunk * sizeof(T); }

 private:
  std::size_t max_chunks_;
  std::unique_ptr<std::atomic<T*>[]> chunks_;
  std::atomic<std::size_t> size_{0};
};

}  // namespace tfsem
