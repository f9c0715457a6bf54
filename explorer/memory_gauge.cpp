#include "explorer/memory_gauge.hpp"

namespace tfsem::explorer {

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
