#include "report/check.hpp"
#include "report/page.hpp"

namespace tfsem::report {

std::string check_page(const CheckReport& report) {
  const auto& sem = report.semantics;
  const auto& r = report.result;
  auto json = check_json(report);
  for (const auto* key : {"seconds", "memory_bytes", "max_memory"}) json.erase(key);  // a page of the same check is the same page
  PageWitnesses witnesses(sem);
  for (std::size_t k = 0; k < r.outcomes.size(); ++k) {
    json["outcomes"][k]["text"] = explorer::outcome_text(sem, r.outcomes[k]);
    json["outcomes"][k]["witness_index"] = witnesses.replay("outcome " + std::to_string(k + 1), r.outcomes[k].witness);
  }
  for (std::size_t k = 0; k < r.races.size(); ++k) {
    const auto& race = r.races[k];
    const auto& names = json["races"][k]["nodes"];
    const auto a = witnesses.replay(names[0].get<std::string>() + " first", race.first_then_second);
    const auto b = witnesses.replay(names[1].get<std::string>() + " first", race.second_then_first);
    json["races"][k]["witnesses"] = {a, b};
  }
  return page_html("tfsem check " + sem.program().name(), sem.program(), json, witnesses);
}

}  // namespace tfsem::report
