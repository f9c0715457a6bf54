#include <doctest/doctest.h>

#include <utility>
#include <vector>

#include "semantics/edge_list.hpp"

using namespace tfsem;

namespace {

std::vector<std::uint32_t> values(const EdgeList& l) {
  std::vector<std::uint32_t> v;
  for (auto e : l) v.push_back(e.value);
  return v;
}

EdgeList counting(std::uint32_t n) {
  EdgeList l;
  for (std::uint32_t i = 0; i < n; ++i) l.push_back(EdgeId(i));
  return l;
}

}  // namespace

TEST_CASE("an edge list holds two edges in place and any number beyond") {
  CHECK(sizeof(EdgeList) == 16);
  for (std::uint32_t n : {0U, 1U, 2U, 3U, 5U, 1000U}) {
    const auto l = counting(n);
    REQUIRE(l.size() == n);
    CHECK(l.empty() == (n == 0));
    for (std::uint32_t i = 0; i < n; ++i) CHECK(l[i] == EdgeId(i));
  }
}

TEST_CASE("an edge list resized by port leaves the new ports without an edge") {
  EdgeList l;
  l.resize(3);
  CHECK(values(l) == std::vector<std::uint32_t>(3, EdgeId{}.value));
  l[2] = EdgeId(std::uint32_t{7});
  l.resize(5);
  CHECK(l[2] == EdgeId(std::uint32_t{7}));
  CHECK(!l[4].valid());
  l.resize(1);
  CHECK(l.size() == 1);
  l.resize(2);  // a port given back is empty again
  CHECK(!l[1].valid());
}

TEST_CASE("edge lists copy and move, in place or not") {
  for (std::uint32_t n : {1U, 2U, 3U, 40U}) {
    CAPTURE(n);
    const auto original = counting(n);
    EdgeList copy(original);
    CHECK(values(copy) == values(original));
    EdgeList moved(std::move(copy));
    CHECK(values(moved) == values(original));
    CHECK(copy.empty());  // NOLINT(bugprone-use-after-move): a moved-from list is empty and usable
    copy.push_back(EdgeId(std::uint32_t{9}));
    CHECK(values(copy) == std::vector<std::uint32_t>{9});

    EdgeList assigned = counting(7);
    assigned = original;
    CHECK(values(assigned) == values(original));
    assigned = counting(3);
    CHECK(values(assigned) == std::vector<std::uint32_t>{0, 1, 2});
    auto& self = assigned;
    assigned = self;
    assigned = std::move(self);
    CHECK(values(assigned) == std::vector<std::uint32_t>{0, 1, 2});
    std::vector<EdgeList> many(50, original);  // copies, then moves as the vector grows
    many.resize(200);
    CHECK(values(many[49]) == values(original));
    CHECK(many[199].empty());
  }
}
