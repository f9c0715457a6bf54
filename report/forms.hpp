// The forms every report shares: one fact per line, "key: value", and the
// same facts as JSON. The line keys and the JSON keys are published and never
// renamed.
#pragma once

#include "explorer/distributed.hpp"
#include "explorer/explore.hpp"
#include "semantics/term_text.hpp"
#include "support/resident_memory.hpp"

#include <nlohmann/json.hpp>

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace tfsem::report {

// The verdict of a search: incomplete, violation (in any outcome: a defect of
// the graph, whatever the number of outcomes), deterministic or nondeterministic.
const char* verdict(bool complete, bool violated, bool one_outcome);
// "verdict: WORD".
std::string verdict_line(std::string_view word);
// I-STATEFUL: the nodes of p that apply an uninterpreted function with state
// of its own (an op tfsem does not model: a random op, a queue, a TensorArray,
// an iterator, a table, a stateful call left uninterpreted), "NODE (FUNCTION)".
std::vector<std::string> uninterpreted_stateful(const Program& p);
// I-STATEFUL-VAR: the nodes of p applying an uninterpreted stateful function
// that take a variable x (a variable edge, S-DEREF: a stateful op tfsem does
// not model given a resource variable's handle), "NODE (FUNCTION) takes
// variable x". Such an op may change x unseen, so no verdict can assume it
// does not interact: the verdict is incomplete.
std::vector<std::string> unassumable(const Program& p);
// "INCOMPLETE: uninterpreted stateful op NODE (FUNCTION) takes variable x, ...", one line each.
std::string unassumable_lines(const std::vector<std::string>& ops);
// The verdict line, and when `assumed` lists such nodes (and the search is
// complete), what the verdict assumes: "verdict: WORD, assuming the N
// uninterpreted stateful ops below do not interact", then each on a line
// "uninterpreted: NODE (FUNCTION) | stateful, its state not modelled".
std::string verdict_line(std::string_view word, const std::vector<std::string>& assumed);
// The same as JSON: {"assuming": ..., "uninterpreted": [...]}, added to j when any is listed.
void add_assumptions(nlohmann::json& j, const std::vector<std::string>& assumed);
// "memory: peak P MiB | max-memory M MiB (SOURCE)": the peak resident memory,
// and the limit with what set it (the machine's bound, or --max-memory).
std::string memory_line(std::uint64_t peak_bytes, const MemoryBound& max);
// {"bytes": M, "from": SOURCE}.
nlohmann::json max_memory_json(const MemoryBound& max);
// "INCOMPLETE: stopped by LIMIT" ("INCOMPLETE: out of memory" when an
// allocation failed), then `where` (" in the reference search").
std::string stopped_line(std::string_view by, std::string_view where = "");
// The JSON form of a command stopped before it had anything to report:
// {"complete": false, "stopped_by": BY, "phase": PHASE} (no phase when empty).
nlohmann::json stopped_json(std::string_view by, std::string_view phase);
// "KEY: N", and " (at least)" when the search stopped before the end.
std::string count_line(std::string_view key, std::size_t n, bool complete);
// "fix: WHAT | verified deterministic: OUTCOME", a fix and the one outcome it leaves.
std::string fix_line(std::string_view what, std::string_view outcome);
// "fix: none found": the search for fixes found none.
std::string no_fix_line();
// S-PATH: a path condition as JSON, [{"term": "Less(x,3)", "value": true}, ...].
nlohmann::json path_condition_json(const PathCondition& path);

// A group of values (an outcome, a state, a run's outputs) written with the
// subterms they share named once (TermNames::group): what `write` writes with
// Tensor::to_string (or tensor_to_json) names them %1, %2, ..., and lines() or
// add_to() give their definitions, which go before the values that use them.
class SharedTerms {
 public:
  template <class F>
  auto operator()(F&& write) {
    return names_.group(write);
  }
  // "term: %1 = F(X,X)", one a line, each after `indent`.
  [[nodiscard]] std::string lines(std::string_view indent = "") const;
  // Adds "terms" (format::terms_to_json) to j when any term was named.
  void add_to(nlohmann::json& j) const;

 private:
  TermNames names_;
};

// The search counters, one a line, then "time: S.SSSs".
std::string counters_text(const explorer::Counters& c, double seconds);
nlohmann::json counters_json(const explorer::Counters& c);

// Each rank's figures of a distributed search, one a line ("rank: K | states ...").
std::string ranks_text(const std::vector<explorer::distributed::RankReport>& ranks);
nlohmann::json ranks_json(const std::vector<explorer::distributed::RankReport>& ranks);

}  // namespace tfsem::report
