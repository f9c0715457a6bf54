// The memory a search holds, as --max-memory limits it: the process's
// resident set, the figure `time -v` and `ps` report as RSS. A search's own
// count of its structures misses what it cannot see (the allocator's
// overhead, the program and its libraries, freed memory kept by the
// allocator, the sanitizers' shadow), so the gauge reads the resident set
// from /proc/self/statm, and between two readings adds what the search's count
// grew by since the last one. Without /proc, the count alone.
#pragma once

#include "support/resident_memory.hpp"

#include <cstdint>

namespace tfsem::explorer {

class MemoryGauge {
 public:
  // counted: the search's own count of its memory now. Reads the resident set
  // again when that count has moved by kReread since the last reading, or
  // after kCalls calls.
  std::uint64_t bytes(std::uint64_t counted);
  [[nodiscard]] std::uint64_t peak() const { return peak_; }

 private:
  static constexpr std::uint64_t kReread = std::uint64_t{1} << 20;
  static constexpr std::uint32_t kCalls = 4096;
  bool read_ = false;
  std::uint32_t calls_ = 0;
  std::uint64_t counted_ = 0, resident_ = 0, peak_ = 0;
};

}  // namespace tfsem::explorer
