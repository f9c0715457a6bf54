// The report of `tfsem check` on one graph: every outcome with its witness,
// the verdict, every race with a witness for each order, the fixes, the
// counters (and, of a distributed search, each rank's figures). The text
// groups the races and shortens the witnesses (CheckTextForm); the JSON keeps
// every detail.
#pragma once

#include "explorer/distributed.hpp"
#include "explorer/explore.hpp"
#include "explorer/fix.hpp"
#include "report/witness.hpp"
#include "support/resident_memory.hpp"
#include "support/stop_token.hpp"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace tfsem::report {

// The fixes of a check: whether they were searched for, those found, and
// what stopped the search for them ("timeout"; empty when nothing did).
struct CheckFixes {
  bool searched = false;
  std::vector<explorer::Fix> found;
  std::string stopped_by;
};

struct CheckReport {
  const Semantics& semantics;
  const explorer::Result& result;
  const CheckFixes& fixes;
  const std::vector<explorer::distributed::RankReport>& ranks;  // empty unless distributed
  MemoryBound max_memory{};  // the limit on the resident memory, and what set it
  // Polled as each outcome and race is written: a stop throws Stopped. May be null.
  const StopToken* stop = nullptr;
};

// How much of the races and witnesses the text shows: by default each race
// group (race_groups.hpp) on one line and each outcome's witness brief; with
// `race_instances` each race of a group too, with a witness for each order.
struct CheckTextForm {
  WitnessForm witnesses = WitnessForm::brief;
  bool race_instances = false;
};

std::string check_text(const CheckReport& r, const CheckTextForm& form = {});
nlohmann::json check_json(const CheckReport& r);
// The page of the check (report/page.hpp): the graph with its races, the
// report, and a stepper through each outcome's witness and each race order's.
std::string check_page(const CheckReport& r);

}  // namespace tfsem::report
