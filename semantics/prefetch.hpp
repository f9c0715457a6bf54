// Starting a cache line's load ahead of its use. GCC 12 drops a
// __builtin_prefetch when its dead-code pass finds nothing that depends on it,
// which it does for the hash-table probes here: the prefetches of NameIndex and
// StateTable were compiled to nothing. An asm statement is never dropped.
#pragma once

#include <cstdint>
#include <span>

namespace tfsem {

inline void prefetch(const void* p) {
#if defined(__x86_64__) || defined(__i386__)
  asm volatile("prefetcht0 %0" : : "m"(*static_cast<const char*>(p)));
#else
  asm volatile("" : : "r"(p));  // keeps the address, and with it the prefetch, alive
  __builtin_prefetch(p);
#endif
}

// Every cache line (64 bytes) of an array's bytes.
template <class T>
void prefetch_lines(std::span<const T> a) {
  constexpr std::uintptr_t kLine = 64;
  const auto begin = reinterpret_cast<std::uintptr_t>(a.data());
  for (auto line = begin & ~(kLine - 1); line < begin + a.size_bytes(); line += kLine)
    prefetch(reinterpret_cast<const void*>(line));
}

}  // namespace tfsem
