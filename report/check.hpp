// The report of `tfsem check` on one graph: every outcome with its witness,
// the verdict, every race with a witness for each order, the fixes, the
// counters (and, of a distributed search, each rank's figures).
#pragma once

#include "explorer/distributed.hpp"
#include "explorer/explore.hpp"
#include "explorer/fix.hpp"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace tfsem::report {

// The fixes of a check: whether they were searched for, those found, and
// whether an interrupt stopped the search for them.
struct CheckFixes {
  bool searched = false;
  std::vector<explorer::Fix> found;
  bool stopped = false;
};

struct CheckReport {
  const Semantics& semantics;
  const explorer::Result& result;
  const CheckFixes& fixes;
  const std::vector<explorer::distributed::RankReport>& ranks;  // empty unless distributed
};

std::string check_text(const CheckReport& r);
nlohmann::json check_json(const CheckReport& r);

}  // namespace tfsem::report
