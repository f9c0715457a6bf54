// The search of a session of runs (S-SESSION): VarValue persisting from run to
// run, each run explored once from each start, races per run, and fixes of a
// run's graph checked on the whole session.
#include <doctest/doctest.h>

#include "explorer/session_search.hpp"
#include "support/graphs.hpp"

using namespace tfsem;

namespace {

std::vector<std::shared_ptr<const Program>> repeated(const std::string& model, std::size_t runs) {
  return std::vector<std::shared_ptr<const Program>>(runs, test::program_file(model));
}

}  // namespace

TEST_CASE("a counter run three times counts to three, one outcome") {
  const auto r = explorer::explore_runs(repeated("models/counter.json", 3), {}, {});
  REQUIRE(r.complete());
  REQUIRE(r.outcomes.size() == 1);
  CHECK(r.deterministic());
  CHECK(r.outcomes[0].runs == std::vector<std::string>{"count=i32:1", "count=i32:2", "count=i32:3"});
  REQUIRE(r.outcomes[0].var_value.size() == 1);
  CHECK(r.outcomes[0].var_value[0].to_string() == "i32:3");
  CHECK(r.outcomes[0].witnesses.size() == 3);
  CHECK(r.races.empty());
  CHECK(r.fixes.empty());
}

TEST_CASE("the first example without its control edge: races per run, fixes checked on the session") {
  explorer::RunsOptions options;
  options.fix_budget = 32;
  std::size_t explored = 0;
  options.explored = [&](const explorer::Result&) { ++explored; };
  const auto r = explorer::explore_runs(repeated("models/first-example-no-control.json", 2), {}, options);
  REQUIRE(r.complete());
  REQUIRE(r.outcomes.size() == 2);
  CHECK(r.outcomes[0].runs == std::vector<std::string>{"y=B", "y=B"});
  CHECK(r.outcomes[1].runs == std::vector<std::string>{"y=A", "y=B"});
  CHECK(r.outcomes[0].paths == 2);
  // Run 2 starts from x=B after either outcome of run 1: explored once, where
  // its race is benign; each fix is checked by a search of two explorations.
  CHECK(r.counters.terminal_states == 3);
  CHECK(explored == 2 + 2 * 2);
  REQUIRE(r.races.size() == 2);
  CHECK(r.races[0].run == 0);
  CHECK(r.races[0].harmful);
  CHECK(r.races[1].run == 1);
  CHECK(!r.races[1].harmful);
  CHECK(r.races[1].variable == "x");
  REQUIRE(r.fixes.size() == 2);
  CHECK(r.fixes[0].text == "add control edge write -> read");
  CHECK(r.fixes[0].outcomes.at(0).runs == std::vector<std::string>{"y=B", "y=B"});
  CHECK(r.fixes[1].outcomes.at(0).runs == std::vector<std::string>{"y=A", "y=B"});
}

TEST_CASE("a cond on a placeholder run twice: one outcome per path condition, the runs agreeing on the term") {
  const auto r = explorer::explore_runs(repeated("models/cond-placeholder.json", 2), {}, {});
  REQUIRE(r.complete());
  // Both runs branch on Less(X,i32:5): a session where they took opposite
  // branches assumed the term true and false, and is no behaviour.
  REQUIRE(r.outcomes.size() == 2);
  CHECK(r.deterministic());
  for (const auto& o : r.outcomes) {
    REQUIRE(o.path.size() == 1);
    CHECK(o.runs[0] == o.runs[1]);
    CHECK(o.runs[0].starts_with("when Less(X,i32:5) is " + std::string(o.path.begin()->value ? "true" : "false")));
  }
}

TEST_CASE("without a fix budget, no fixes; a limit names the run it stopped") {
  const auto programs = repeated("models/first-example-no-control.json", 2);
  CHECK(explorer::explore_runs(programs, {}, {}).fixes.empty());
  explorer::RunsOptions options;
  options.fix_budget = 32;
  options.explore.limits.max_states = 2;
  const auto r = explorer::explore_runs(programs, {}, options);
  CHECK(!r.complete());
  CHECK(r.stopped_by.starts_with("run 1: "));
  CHECK(r.fixes.empty());
}
