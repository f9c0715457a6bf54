// How a text report writes a witness schedule: whole (--witnesses full), or
// short: the steps that matter, with "..." for each run of the others and the
// number of steps left out. A short witness names only the steps it shows, so
// it costs the same whatever the schedule's length.
#pragma once

#include "semantics/session.hpp"

#include <functional>
#include <string>

namespace tfsem::report {

// --witnesses short (the default) or full.
enum class WitnessForm { brief, full };

// At most this many steps that matter are shown: the first and the last half.
inline constexpr std::size_t kShownSteps = 6;

// "...,a[loop:0],b,...,c (N of M steps elided)": the steps where `matters`
// holds or, when none does, the last few; "(no steps)" for an empty schedule.
std::string brief_schedule(const Semantics& sem, const Schedule& s, const std::function<bool(const Step&)>& matters);

// The schedule in `form`: schedule_to_string's, or brief_schedule's.
std::string witness_text(const Semantics& sem, const Schedule& s, WitnessForm form,
                         const std::function<bool(const Step&)>& matters);

}  // namespace tfsem::report
