// Starting a cache line's load ahead of its use. GCC 12 drops a
// __builtin_prefetch when its dead-code pass finds nothing that depends on it,
// which it does for hash-table probes such as NameIndex's and StateTable's, so
// they would compile to nothing. An asm statement is never dropped.
#pragma once

#include <algorithm>
#include <cstdint>
#include <span>
#include <vector>

namespace tfsem {

inline void prefetch(const void* p) {
#if defined(__x86_64__) || defined(__i386__)
  asm volatile("prefetcht0 %0" : : "m"(*static_cast<const char*>(p)));
#else
  asm volatile("" : : "r"(p));  // keeps the address, and with it the prefetch, alive
  __builtin_prefetch(p);
#endif
}

// A line fetched to be written: it comes exclusive, any copy another core
// holds invalidated before the store rather than at it (a store that waits
// for the other core stalls every store behind it).
inline void prefetch_for_write(const void* p) {
#if defined(__x86_64__) || defined(__i386__)
  asm volatile("prefetchw %0" : : "m"(*static_cast<const char*>(p)));  // a no-op on a CPU without it
#else
  asm volatile("" : : "r"(p));
  __builtin_prefetch(p, 1);
#endif
}

// Every cache line (64 bytes) of an array's bytes, fetched by Fetch.
template <void (*Fetch)(const void*) = prefetch, class T>
void prefetch_lines(std::span<const T> a) {
  constexpr std::uintptr_t kLine = 64;
  const auto begin = reinterpret_cast<std::uintptr_t>(a.data());
  for (auto line = begin & ~(kLine - 1); line < begin + a.size_bytes(); line += kLine)
    Fetch(reinterpret_cast<const void*>(line));
}

// Fetches for writing the lines a vector reused from call to call (cleared,
// its capacity kept) will store its next elements in: up to n elements past
// its end, within its capacity, each line once (from where the last call's
// reach ended, unless the vector has been cleared or has moved since).
template <class T>
class WriteAhead {
 public:
  void operator()(const std::vector<T>& v, std::size_t n) {
    if (v.data() != data_ || v.size() < size_) reached_ = 0;
    data_ = v.data(), size_ = v.size();
    const auto from = std::max(reached_, v.size()), to = std::min(v.capacity(), v.size() + n);
    if (from >= to) return;
    prefetch_lines<prefetch_for_write>(std::span<const T>(v.data() + from, to - from));
    reached_ = to;
  }

 private:
  const T* data_ = nullptr;
  std::size_t size_ = 0, reached_ = 0;
};

}  // namespace tfsem
