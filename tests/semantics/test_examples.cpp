// The paper's first example under every schedule (section 3.2.2 and footnote 7).
#include <doctest/doctest.h>

#include "semantics/prune.hpp"
#include "support/graphs.hpp"

using namespace tfsem;

namespace {
std::set<std::string> outcomes(std::shared_ptr<const Program> p, bool normalize = false) {
  Options o;
  o.terms.normalize = normalize;
  Semantics sem(std::move(p), o);
  std::set<std::string> out;
  test::all_outputs(sem, sem.initial(), out);
  return out;
}
}  // namespace

TEST_CASE("first example with the control edge: every schedule outputs B") {
  CHECK(outcomes(test::program_file("models/first-example.json")) == std::set<std::string>{"y=B"});
}

TEST_CASE("first example without the control edge: the output can be A or B") {
  CHECK(outcomes(test::program_file("models/first-example-no-control.json")) == std::set<std::string>{"y=A", "y=B"});
}

TEST_CASE("footnote 7: pruned from its fetch, the subgraph that sets x is gone and the output is A") {
  const auto pruned = prune(*test::program_file("models/first-example-no-control.json"));
  CHECK(pruned->nodes().size() == 2);
  CHECK_FALSE(pruned->find_node("write").has_value());
  CHECK(outcomes(pruned) == std::set<std::string>{"y=A"});
  // With the control edge, the Write is an ancestor of the Read and is kept.
  CHECK(prune(*test::program_file("models/first-example.json"))->nodes().size() == 4);
}

TEST_CASE("pruning to an unknown fetch is an input error") {
  CHECK_THROWS_WITH(prune(*test::program_file("models/first-example.json"), {"nope"}),
                    "fetch 'nope': the program has no output edge with this fetch name [S-PRUNE]");
}
