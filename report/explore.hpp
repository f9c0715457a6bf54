// The report of `tfsem explore`: the search counters of each reduction side by
// side, one row a counter (text), or one object a reduction (JSON).
#pragma once

#include "explorer/distributed.hpp"
#include "explorer/explore.hpp"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace tfsem::report {

struct ExploreReport {
  const Program& program;
  const std::vector<std::string>& pors;             // the reductions run, in order
  const std::vector<explorer::Result>& results;     // one per reduction run (an interrupt leaves the rest out)
  const std::vector<std::vector<explorer::distributed::RankReport>>& ranks;  // per reduction, of a distributed search
  bool distributed = false;
};

std::string explore_text(const ExploreReport& r);
nlohmann::json explore_json(const ExploreReport& r);

}  // namespace tfsem::report
