// The state table: rows come back as stored, found again, and survive the
// arena widening from one to two to four bytes per code.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>

#include "explorer/state_table.hpp"

#include <vector>

using namespace tfsem::explorer;

namespace {

std::vector<Code> row_of(std::uint32_t seed, Code top) {
  std::vector<Code> r(37);
  for (std::size_t i = 0; i < r.size(); ++i) r[i] = static_cast<Code>((seed * 2654435761U + i * 40503U) % top);
  return r;
}

}  // namespace

TEST_CASE("rows are found again across growth and widening") {
  StateTable table(37);
  std::vector<std::vector<Code>> rows;
  // 1-byte codes, then 2-byte, then 4-byte: 40,000 rows, more than two chunks.
  for (std::uint32_t i = 0; i < 40000; ++i) rows.push_back(row_of(i, i < 20000 ? 200 : i < 30000 ? 60000 : 5000000));
  std::vector<StateIndex> index;
  for (const auto& r : rows) {
    const auto [i, fresh] = table.insert(r.data(), table.hash(r.data()));
    index.push_back(i);
    if (fresh) CHECK(i == table.size() - 1);
  }
  std::vector<Code> back(37);
  for (std::size_t k = 0; k < rows.size(); ++k) {
    table.load(index[k], back.data());
    CHECK(back == rows[k]);
    const auto [i, fresh] = table.insert(rows[k].data(), table.hash(rows[k].data()));
    CHECK_FALSE(fresh);
    CHECK(i == index[k]);
  }
}
