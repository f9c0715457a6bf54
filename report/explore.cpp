#include "report/explore.hpp"

#include "report/forms.hpp"

#include <algorithm>
#include <cstdio>

namespace tfsem::report {

namespace {

struct Row {
  const char* key;
  std::uint64_t (*get)(const explorer::Result&);
};

const Row kRows[] = {
    {"states-stored", [](const explorer::Result& r) { return r.counters.states_stored; }},
    {"states-matched", [](const explorer::Result& r) { return r.counters.states_matched; }},
    {"transitions", [](const explorer::Result& r) { return r.counters.transitions; }},
    {"terminal-states", [](const explorer::Result& r) { return r.counters.terminal_states; }},
    {"behaviours-explored", [](const explorer::Result& r) { return r.counters.behaviours; }},
    {"transitions-pruned", [](const explorer::Result& r) { return r.counters.transitions_pruned; }},
    {"firings", [](const explorer::Result& r) { return r.counters.firings; }},
    {"outcomes", [](const explorer::Result& r) { return std::uint64_t{r.outcomes.size()}; }},
    {"races", [](const explorer::Result& r) { return std::uint64_t{r.races.size()}; }},
    {"memory-kib", [](const explorer::Result& r) { return r.memory_bytes >> 10; }},
    // The process's peak memory, and the visited states' own structures, per stored state.
    {"bytes-per-state", [](const explorer::Result& r) { return r.memory_bytes / std::max<std::uint64_t>(1, r.counters.states_stored); }},
    {"store-bytes-per-state", [](const explorer::Result& r) { return r.store_bytes / std::max<std::uint64_t>(1, r.counters.states_stored); }},
};

bool all_complete(const std::vector<explorer::Result>& results) {
  return std::all_of(results.begin(), results.end(), [](const explorer::Result& r) { return r.complete; });
}

// printf's formatting, into a string.
template <typename... Args>
std::string formatted(const char* format, Args... args) {
  const auto n = std::snprintf(nullptr, 0, format, args...);
  std::string out(static_cast<std::size_t>(n) + 1, '\0');
  std::snprintf(out.data(), out.size(), format, args...);
  out.pop_back();
  return out;
}

}  // namespace

std::string explore_text(const ExploreReport& r) {
  std::string out = "graph: " + r.program.name() + "\nhash: " + r.program.hash_hex() + "\n" + formatted("%-20s", "por");
  for (std::size_t k = 0; k < r.results.size(); ++k) out += formatted(" %14s", r.pors[k].c_str());
  out += "\n";
  for (const auto& row : kRows) {
    out += formatted("%-20s", row.key);
    for (const auto& result : r.results) out += formatted(" %14llu", static_cast<unsigned long long>(row.get(result)));
    out += "\n";
  }
  out += formatted("%-20s", "seconds");
  for (const auto& result : r.results) out += formatted(" %14.3f", result.seconds);
  out += "\n" + formatted("%-20s", "complete");
  for (const auto& result : r.results) out += formatted(" %14s", result.complete ? "yes" : ("no: " + result.stopped_by).c_str());
  out += "\n";
  for (std::size_t k = 0; k < r.results.size(); ++k)
    if (!r.results[k].complete) out += stopped_line(r.results[k].stopped_by, " (por " + r.pors[k] + ")");
  return out;
}

nlohmann::json explore_json(const ExploreReport& r) {
  nlohmann::json j = {{"graph", r.program.name()}, {"hash", r.program.hash_hex()}, {"complete", all_complete(r.results)}};
  for (std::size_t k = 0; k < r.results.size(); ++k) {
    const auto& result = r.results[k];
    nlohmann::json c = {{"complete", result.complete}, {"stopped_by", result.stopped_by}, {"seconds", result.seconds}};
    for (const auto& row : kRows) c[row.key] = row.get(result);
    if (r.distributed) c["ranks"] = ranks_json(r.ranks[k]);
    j["por"][r.pors[k]] = c;
  }
  return j;
}

}  // namespace tfsem::report
