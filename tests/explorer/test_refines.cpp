// Refinement (X-REFINES): B refines A when each of B's outcomes, on what the
// two share, is one of A's.
#include <doctest/doctest.h>

#include "explorer/refines.hpp"
#include "support/graphs.hpp"

using namespace tfsem;

TEST_CASE("the first example refines its version without the control edge, not the other way") {
  const Semantics with(test::program_file("models/first-example.json")),
      without(test::program_file("models/first-example-no-control.json"));
  const auto ok = explorer::refines(without, with, {});
  CHECK(ok.complete());
  CHECK(ok.refines());
  CHECK(ok.fetches == std::set<std::string>{"y"});
  CHECK(ok.variables == std::set<std::string>{"x"});
  const auto no = explorer::refines(with, without, {});
  CHECK(no.complete());
  CHECK(!no.refines());
  REQUIRE(no.extra.size() == 1);
  CHECK(no.extra[0].shown == "y=A; x=B");
  // The witness leads B to the outcome A lacks.
  State s = without.initial();
  CHECK(!replay(without, s, no.extra[0].witness));
  CHECK(test::outputs_text(without.program(), s) == "y=A");
}

TEST_CASE("an incomplete search gives no verdict") {
  const Semantics a(test::program_file("models/first-example.json")),
      b(test::program_file("models/first-example-no-control.json"));
  explorer::ExploreOptions options;
  options.limits.max_states = 2;
  const auto r = explorer::refines(a, b, options);
  CHECK(!r.complete());
  CHECK(!r.refines());
  CHECK(r.extra.empty());
}
