#include "support/back_pages.hpp"

#include "support/on_threads.hpp"

#include <algorithm>
#include <cstdint>
#include <exception>

#if defined(__linux__)
#include <sys/mman.h>
#include <unistd.h>
#endif

namespace tfsem {

void back_pages(void* p, std::size_t bytes, std::size_t parts) {
#if defined(__linux__) && defined(MADV_POPULATE_WRITE)
  const auto page = static_cast<std::uintptr_t>(sysconf(_SC_PAGESIZE));
  const auto begin = (reinterpret_cast<std::uintptr_t>(p) + page - 1) & ~(page - 1);
  const auto end = (reinterpret_cast<std::uintptr_t>(p) + bytes) & ~(page - 1);
  if (end <= begin) return;
  const auto pages = (end - begin) / page;
  const auto share = (pages + parts - 1) / parts * page;
  const auto populate = [&](std::size_t k) {
    const auto from = begin + k * share, to = std::min(end, from + share);
    if (from < to) madvise(reinterpret_cast<void*>(from), to - from, MADV_POPULATE_WRITE);  // advice: failure is harmless
  };
  try {
    on_threads(parts, populate);
  } catch (const std::exception&) {  // no thread (or no memory) for a share: advice, never a failure
  }
#else
  static_cast<void>(p), static_cast<void>(bytes), static_cast<void>(parts);
#endif
}

}  // namespace tfsem
