#include "explorer/stopping.hpp"

#include "semantics/unknown_inputs.hpp"

#include <utility>

namespace tfsem::explorer {

void Stopping::into(Result& r) const {
  if (!stopped()) return;
  r.complete = false;
  r.stopped_by = reason_;
}

void Stopping::stop(Stop why, std::string reason) {
  if (stopped()) return;
  why_ = why;
  reason_ = std::move(reason);
}

void Stopping::at_bound(FrameId frame) {
  const auto unknown = sem_.program().frame(frame).kind == Frame::Kind::loop ? unknown_inputs(sem_, frame) : UnknownInputs{};
  stop(Stop::bound, bound_to_string(sem_.program(), frame, options_.limits.bounds) +
                        (unknown.empty() ? "" : ", whose condition depends on unknown " + unknown_inputs_text(unknown)));
}

bool Stopping::interrupted() {
  const auto* flag = options_.limits.stop;
  if (flag == nullptr || !flag->load(std::memory_order_relaxed)) return false;
  stop(Stop::interrupt, "interrupt");
  return true;
}

bool Stopping::past_states(std::uint64_t stored) {
  const auto max = options_.limits.max_states;
  if (stored <= max) return false;
  stop(Stop::states, "max-states " + std::to_string(max));
  return true;
}

bool Stopping::past_timeout() {
  const auto& timeout = options_.limits.timeout;
  if (!timeout || elapsed() <= timeout->count()) return false;
  stop(Stop::timeout, "timeout");
  return true;
}

bool Stopping::past_memory(std::uint64_t bytes) {
  const auto max = options_.limits.max_memory_bytes;
  if (bytes <= max) return false;
  stop(Stop::memory, "max-memory " + std::to_string(max >> 20) + " MiB");
  return true;
}

}  // namespace tfsem::explorer
