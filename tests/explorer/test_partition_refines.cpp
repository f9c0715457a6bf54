// X-PARTITION against X-REFINES: with the paper's snapshot reads, a graph
// partitioned across two devices, a Send/Recv pair on every edge that can be
// cut, has the outcomes of the graph on one device, both ways, for every
// shipped model whose own search ends (while-placeholder-bound's loop runs on
// an unfed placeholder: its search stops at --max-iterations, unpartitioned as
// partitioned).
#include <doctest/doctest.h>

#include "explorer/refines.hpp"
#include "semantics/partition.hpp"
#include "support/graphs.hpp"

using namespace tfsem;

TEST_CASE("X-PARTITION, X-REFINES: every shipped model and its partition across two devices refine each other") {
  const PartitionOptions two{.devices = {"d0", "d1"}, .assign = PartitionOptions::Assign::round_robin, .every_edge = true};
  int pairs = 0, unbounded = 0;
  for (const auto& p : test::shipped_models()) {
    CAPTURE(p->name());
    const auto parted = Program::build(partition(p->spec(), two));
    for (const auto& n : parted->nodes()) pairs += n.op.kind == OpKind::send;
    const Semantics one(p), split(parted);
    const auto down = explorer::refines(one, split, {});
    if (!down.specification.complete) {
      CHECK(!down.implementation.complete);
      ++unbounded;
      continue;
    }
    CHECK(down.complete());
    CHECK(down.refines());
    const auto up = explorer::refines(split, one, {});
    CHECK(up.complete());
    CHECK(up.refines());
  }
  CHECK(pairs > 100);
  CHECK(unbounded == 1);
}
