#include "report/witness.hpp"

#include <vector>

namespace tfsem::report {

namespace {
// Shown when no step matters: the steps that end the schedule.
constexpr std::size_t kLastSteps = 3;
}  // namespace

std::string brief_schedule(const Semantics& sem, const Schedule& s, const std::function<bool(const Step&)>& matters) {
  if (s.empty()) return "(no steps)";
  std::vector<std::size_t> shown;
  for (std::size_t i = 0; i < s.size(); ++i)
    if (matters(s[i])) shown.push_back(i);
  if (shown.empty())
    for (auto i = s.size() > kLastSteps ? s.size() - kLastSteps : 0; i < s.size(); ++i) shown.push_back(i);
  if (shown.size() > kShownSteps) shown.erase(shown.begin() + kShownSteps / 2, shown.end() - kShownSteps / 2);
  std::string out;
  auto item = [&out](const std::string& text) { out += (out.empty() ? "" : ",") + text; };
  std::size_t next = 0;  // the first step not yet written or elided
  for (auto i : shown) {
    if (i > next) item("...");
    item(step_to_string(sem, s[i]));
    next = i + 1;
  }
  if (next < s.size()) item("...");
  const auto elided = s.size() - shown.size();
  if (elided > 0) out += " (" + std::to_string(elided) + " of " + std::to_string(s.size()) + " steps elided)";
  return out;
}

std::string witness_text(const Semantics& sem, const Schedule& s, WitnessForm form,
                         const std::function<bool(const Step&)>& matters) {
  return form == WitnessForm::full ? schedule_to_string(sem, s) : brief_schedule(sem, s, matters);
}

}  // namespace tfsem::report
