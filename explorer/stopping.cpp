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

bool Stopping::stopped_by_token() {
  const auto* token = options_.limits.stop;
  if (token == nullptr || !token->stopped()) return false;
  static constexpr Stop kWhy[] = {Stop::none, Stop::interrupt, Stop::timeout, Stop::memory, Stop::memory};
  stop(kWhy[static_cast<std::size_t>(token->reason())], token->reason_text());
  return true;
}

void Stopping::out_of_memory() {
  if (const auto* token = options_.limits.stop) token->out_of_memory();
  stop(Stop::memory, "out of memory");
}

bool Stopping::past_states(std::uint64_t stored) {
  const auto max = options_.limits.max_states;
  if (stored <= max) return false;
  stop(Stop::states, "max-states " + std::to_string(max));
  return true;
}

bool Stopping::past_memory(std::uint64_t bytes) {
  const auto max = options_.limits.max_memory_bytes;
  if (bytes <= max) return false;
  stop(Stop::memory, "max-memory " + std::to_string(max >> 20) + " MiB");
  return true;
}

}  // namespace tfsem::explorer
