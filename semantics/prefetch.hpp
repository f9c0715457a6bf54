// Starting a cache line's load ahead of its use. GCC 12 drops a
// __builtin_prefetch when its dead-code pass finds nothing that depends on it,
// which it does for the hash-table probes here: the prefetches of NameIndex and
// StateTable were compiled to nothing. An asm statement is never dropped.
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

// Every cache line (64 bytes) of an array's bytes, fetched by `fetch`.
template <class T>
void prefetch_lines(std::span<const T> a, void (*fetch)(const void*) = prefetch) {
  constexpr std::uintptr_t kLine = 64;
  const auto begin = reinterpret_cast<std::uintptr_t>(a.data());
  for (auto line = begin & ~(kLine - 1); line < begin + a.size_bytes(); line += kLine)
    fetch(reinterpret_cast<const void*>(line));
}

// The lines vector v's next n elements will be stored in, within its
// capacity (a vector reused from call to call), fetched to be written.
template <class T>
void prefetch_append(const std::vector<T>& v, std::size_t n) {
  prefetch_lines(std::span(v.data() + v.size(), std::min(v.capacity(), v.size() + n) - v.size()), prefetch_for_write);
}

}  // namespace tfsem
