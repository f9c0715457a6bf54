#include "explorer/memory_gauge.hpp"

#include <unistd.h>

#include <cstdio>

namespace tfsem::explorer {

std::optional<std::uint64_t> resident_set_bytes() {
  std::FILE* f = std::fopen("/proc/self/statm", "r");
  if (f == nullptr) return std::nullopt;
  unsigned long long size = 0, resident = 0;  // in pages
  const bool ok = std::fscanf(f, "%llu %llu", &size, &resident) == 2;
  std::fclose(f);
  const long page = sysconf(_SC_PAGESIZE);
  if (!ok || page <= 0) return std::nullopt;
  return resident * static_cast<std::uint64_t>(page);
}

std::uint64_t MemoryGauge::bytes(std::uint64_t counted) {
  const auto moved = counted > counted_ ? counted - counted_ : counted_ - counted;
  if (!read_ || moved >= kReread || ++calls_ >= kCalls) {
    const auto resident = resident_set_bytes();
    read_ = true, calls_ = 0, counted_ = counted, resident_ = resident.value_or(counted);
  }
  const auto now = counted > counted_ ? resident_ + (counted - counted_) : resident_;
  if (now > peak_) peak_ = now;
  return now;
}

}  // namespace tfsem::explorer
