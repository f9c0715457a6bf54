// The state table: rows come back as stored, found again, across new layouts
// (dictionaries outgrowing their bits), large codes and wider rows, and after
// a checkpoint; an index that would lose a row is refused. The merge's memo
// of recent arrivals finds only equal rows of the current chunk. The
// visited store keeps each unexpanded state's path count and sleep set
// through other arrivals and a checkpoint, lets a level's entries go as its
// states are taken, and its positions once their levels are expanded.
#include <doctest/doctest.h>

#include "explorer/checkpoint_file.hpp"
#include "explorer/recent_arrivals.hpp"
#include "explorer/state_table.hpp"
#include "explorer/visited.hpp"

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include <unistd.h>

using namespace tfsem::explorer;

namespace {

std::vector<Code> row_of(std::uint32_t seed, Code top) {
  std::vector<Code> r(37);
  for (std::size_t i = 0; i < r.size(); ++i) r[i] = static_cast<Code>((seed * 2654435761U + i * 40503U) % top);
  return r;
}

// A checkpoint file of this process, removed with it.
struct TempFile {
  std::string path = (std::filesystem::temp_directory_path() / ("tfsem-state-table-" + std::to_string(::getpid()))).string();
  ~TempFile() { std::filesystem::remove(path); }
};

// A table of one column and no rows, as StateTable::save writes one, but
// with index part 0 given `part0` as its slots.
void write_empty_table(const std::string& path, const std::vector<std::uint64_t>& part0) {
  CheckpointOut out(path);
  out.pod<std::uint64_t>(1), out.pod<std::uint64_t>(0), out.pod<std::uint64_t>(0);  // width, rows, bytes held
  out.list(std::vector<Code>{kEmptyCode});                                            // column 0's dictionary
  out.pod<std::uint64_t>(1);                                                          // one layout: no field
  out.list(std::vector<std::uint8_t>{0}), out.list(std::vector<std::uint32_t>{}), out.list(std::vector<std::uint64_t>{});
  out.pod<std::uint64_t>(0);
  out.pod<std::uint64_t>(0);  // no chunk of rows
  out.list(part0);
  for (int k = 1; k < 256; ++k) out.list(std::vector<std::uint64_t>(16, 0));
  out.commit();
}

bool refused(const std::string& path) {
  try {
    CheckpointIn in(path);
    StateTable(1).restore(in);
  } catch (const CheckpointError&) {
    return true;
  }
  return false;
}

}  // namespace

TEST_CASE("a restored table finds every row, and grows on") {
  TempFile f;
  StateTable table(37);
  std::vector<std::vector<Code>> rows;
  for (std::uint32_t i = 0; i < 6000; ++i) {
    rows.push_back(row_of(i, 5000));
    rows.back()[0] = i;  // every row distinct
  }
  for (std::size_t k = 0; k < 3000; ++k) table.insert(rows[k], StateTable::hash(rows[k]));
  {
    CheckpointOut out(f.path);
    table.save(out);
    out.commit();
  }
  CheckpointIn in(f.path);
  StateTable back(37);
  back.restore(in);
  REQUIRE(back.size() == table.size());
  for (std::size_t k = 0; k < rows.size(); ++k) {
    const auto [i, fresh] = back.insert(rows[k], StateTable::hash(rows[k]));
    CHECK(fresh == (k >= 3000));
    CHECK(i == k);
  }
}

TEST_CASE("an index that would lose a row is refused") {
  TempFile f;
  write_empty_table(f.path, std::vector<std::uint64_t>(16, 0));
  CHECK_FALSE(refused(f.path));
  write_empty_table(f.path, {0});  // a part smaller than any grows from, which could never grow
  CHECK(refused(f.path));
  auto names = std::vector<std::uint64_t>(16, 0);
  names[3] = 1;  // row 0, of a table that holds none
  write_empty_table(f.path, names);
  CHECK(refused(f.path));
}

TEST_CASE("rows are found again across growth and widening") {
  StateTable table(37);
  std::vector<std::vector<Code>> rows;
  // Codes below 200, then 60,000, then 5,000,000 (past the direct arrays): 40,000 rows, more than two chunks.
  for (std::uint32_t i = 0; i < 40000; ++i) rows.push_back(row_of(i, i < 20000 ? 200 : i < 30000 ? 60000 : 5000000));
  std::vector<StateIndex> index;
  for (const auto& r : rows) {
    const auto [i, fresh] = table.insert(r, StateTable::hash(r));
    index.push_back(i);
    if (fresh) CHECK(i == table.size() - 1);
  }
  Row back;
  for (std::size_t k = 0; k < rows.size(); ++k) {
    table.load(index[k], back);
    CHECK(back == rows[k]);
    const auto [i, fresh] = table.insert(rows[k], StateTable::hash(rows[k]));
    CHECK_FALSE(fresh);
    CHECK(i == index[k]);
  }
}

TEST_CASE("a hash at a level keeps the row's low bits and takes the level's top five") {
  const Row a{1, 2, 3}, b{4, 5, 6};
  for (const auto& r : {a, b})
    for (std::size_t level : {0, 1, 7, 31, 32, 1000003}) {
      const auto h = StateTable::hash(r), at = StateTable::at_level(h, level);
      const std::uint64_t low = (std::uint64_t{1} << 59) - 1, top = at >> 59, kept = at & low;
      CHECK(top == level % 32);
      CHECK(kept == (h & low));
    }
  // One level's rows are found again through their hashes at that level.
  StateTable table(3);
  const auto [ia, fa] = table.insert(a, StateTable::at_level(StateTable::hash(a), 5));
  const auto [ib, fb] = table.insert(b, StateTable::at_level(StateTable::hash(b), 5));
  CHECK(fa);
  CHECK(fb);
  CHECK(ia != ib);
  CHECK(table.insert(a, StateTable::at_level(StateTable::hash(a), 5)) == std::pair{ia, false});
  CHECK(table.insert(b, StateTable::at_level(StateTable::hash(b), 37)) == std::pair{ib, false});
}

TEST_CASE("a level let go of is no longer found, its rows still load, and other levels are untouched") {
  StateTable table(3);
  const Row a{1, 2, 3}, b{4, 5, 6}, c{7, 8, 9};
  const auto at = [](const Row& r, std::size_t level) { return StateTable::at_level(StateTable::hash(r), level); };
  const auto ia = table.insert(a, at(a, 4)).first;
  const auto ib = table.insert(b, at(b, 36)).first;  // 32 levels apart: the same parts
  const auto ic = table.insert(c, at(c, 5)).first;
  CHECK(StateTable::same_parts(4, 36));
  CHECK_FALSE(StateTable::same_parts(4, 5));
  for (std::size_t k = 0; k < 1000; ++k) {  // parts that grew give their slots back
    const Row r{10, static_cast<Code>(k + 11), 12};
    table.insert(r, at(r, 4));
  }
  const auto grown = table.bytes();
  table.let_go_level(36);
  CHECK(grown - table.bytes() >= 1000 * sizeof(std::uint64_t));  // the rows stay; their slots go
  CHECK(table.size() == 1003);
  Row back;
  table.load(ia, back);
  CHECK(back == a);
  table.load(ib, back);
  CHECK(back == b);
  CHECK(table.insert(c, at(c, 5)) == std::pair{ic, false});
  const auto [again, fresh] = table.insert(a, at(a, 4));
  CHECK(fresh);
  CHECK(again == 1003);
}

TEST_CASE("longer rows widen the arena; shorter rows read as padded with EMPTY") {
  StateTable table(4);
  const Row a{1, 2, 0, 0}, a_short{1, 2}, b{1, 2, 3, 0, 0, 7};
  CHECK(StateTable::hash(a) == StateTable::hash(a_short));
  const auto [ia, fa] = table.insert(a, StateTable::hash(a));
  CHECK(fa);
  const auto [ib, fb] = table.insert(b, StateTable::hash(b));
  CHECK(fb);
  CHECK(table.width() >= 6);
  const auto [ia2, fa2] = table.insert(a_short, StateTable::hash(a_short));
  CHECK_FALSE(fa2);
  CHECK(ia2 == ia);
  Row back;
  table.load(ia, back);
  CHECK(std::vector<Code>(back.begin(), back.begin() + 4) == a);
  CHECK(std::all_of(back.begin() + 4, back.end(), [](Code c) { return c == kEmptyCode; }));
  table.load(ib, back);
  CHECK(std::vector<Code>(back.begin(), back.begin() + 6) == b);
}

TEST_CASE("the memo of recent arrivals finds equal rows of its chunk only") {
  RecentArrivals recent;
  const std::vector<Code> a{3, 4, 5}, padded{3, 4, 5, kEmptyCode, kEmptyCode}, b{3, 4, 6};
  CHECK(StateTable::hash(a) == StateTable::hash(padded));
  CHECK_FALSE(recent.find(StateTable::hash(a), a));
  recent.remember(StateTable::hash(a), a, 7);
  CHECK(recent.find(StateTable::hash(a), a) == StateIndex{7});
  CHECK(recent.find(StateTable::hash(padded), padded) == StateIndex{7});  // rows compare padded with EMPTY
  CHECK_FALSE(recent.find(StateTable::hash(a), b));  // a hash that collides is not taken for the row
  CHECK_FALSE(recent.find(StateTable::hash(b), b));
  recent.remember(StateTable::hash(b), b, 8);
  CHECK(recent.find(StateTable::hash(b), b) == StateIndex{8});
  recent.next_chunk();  // the rows remembered may have gone
  CHECK_FALSE(recent.find(StateTable::hash(a), a));
  CHECK_FALSE(recent.find(StateTable::hash(b), b));
  CHECK(StateTable::same_row(std::vector<Code>{}, std::vector<Code>{kEmptyCode}));
  CHECK_FALSE(StateTable::same_row(std::vector<Code>{1}, std::vector<Code>{1, 2}));
}

TEST_CASE("a chunk's last row that outgrows its stride keeps the rows before it") {
  StateTable table(100);
  std::vector<Row> rows;
  for (Code k = 0; k + 1 < 4096; ++k) {
    Row r(100, kEmptyCode);
    r[0] = k + 1;
    rows.push_back(r);
  }
  rows.emplace_back(100, Code{5});  // row 4,095, the chunk's last: a bit more in each of 100 columns
  for (const auto& r : rows) CHECK(table.insert(r, StateTable::hash(r)).second);
  Row back;
  for (std::size_t k = 0; k < rows.size(); ++k) {
    table.load(static_cast<StateIndex>(k), back);
    CHECK(back == rows[k]);
  }
}

TEST_CASE("the visited store keeps sleep sets and path counts through arrivals, and lets expanded positions go") {
  using tfsem::NodeId, tfsem::Transition;
  const auto t = [](std::uint32_t n) { return Transition{NodeId{n}}; };
  const std::vector<Transition> all{t(1), t(2), t(3), t(4)}, some{t(2), t(4), t(9)}, none;
  constexpr std::uint32_t kStates = 3 * 65536 + 5;  // three full chunks of positions and a part of a fourth
  const auto row = [](std::uint32_t k) { return std::vector<Code>{k % 1000 + 10, k / 1000 + 10, 7}; };
  Visited<std::uint32_t> v(3);
  for (std::uint32_t k = 0; k < kStates; ++k) {
    const auto r = row(k);
    // Levels 1, 2 and 3, a chunk each, and the rest at level 5; the second chunk has one state at level 4.
    const std::size_t level = k == 65536 + 7 ? 4 : k < 3 * 65536 ? 1 + k / 65536 : 5;
    CHECK(v.add(r, StateTable::hash(r), k, level, k % 2 == 0 ? std::span(all) : std::span(none), 1) == std::pair{k, true});
  }
  const auto again = [&](std::uint32_t k, std::size_t level, std::span<const Transition> sleep) {
    const auto r = row(k);
    CHECK(v.add(r, StateTable::hash(r), 0, level, sleep, 2) == std::pair{k, false});
  };
  again(10, 1, some);     // {1,2,3,4} and {2,4,9}: {2,4}
  again(10, 1, all);      // stays {2,4}
  again(12, 1, none);     // empty
  again(11, 1, some);     // empty and anything: empty
  CHECK(std::ranges::equal(v.sleep(1, 10), std::vector{t(2), t(4)}));
  CHECK(v.sleep(1, 12).empty());
  CHECK(v.sleep(1, 11).empty());
  CHECK(std::ranges::equal(v.sleep(1, 14), all));  // its neighbour's shrinking left it whole
  CHECK(v.paths(1, 10) == 5);  // 1 + 2 + 2
  CHECK(v.paths(1, 14) == 1);
  again(kStates - 1, 5, some);  // the last of its level: its set ends at the pool's end
  CHECK(std::ranges::equal(v.sleep(5, kStates - 1), std::vector{t(2), t(4)}));
  v.taken(1, 9);  // states 0 to 9 expanded: their entries go, the others are found as before
  CHECK(!v.queued(1, 9));
  CHECK(!v.queued(1, 0));
  CHECK(v.queued(1, 10));
  v.taken(1, 3);  // already gone: nothing changes
  CHECK(v.queued(1, 10));
  again(10, 1, std::vector{t(4)});
  CHECK(std::ranges::equal(v.sleep(1, 10), std::vector{t(4)}));

  TempFile file;
  {
    CheckpointOut out(file.path);
    v.save(out);
    out.commit();
  }
  Visited<std::uint32_t> restored(3);
  {
    CheckpointIn in(file.path);
    restored.restore(in);
    CHECK(in.at_end());
  }
  for (auto* store : {&v, &restored}) {
    CHECK(!store->queued(1, 9));
    CHECK(std::ranges::equal(store->sleep(1, 10), std::vector{t(4)}));
    CHECK(store->paths(1, 10) == 7);
    CHECK(store->paths(1, 12) == 3);
    CHECK(store->arrival(kStates - 1) == kStates - 1);
    CHECK(store->queued(3, 2 * 65536 + 1));
    store->drop_level(1);  // the first chunk goes: its states were all at level 1
    CHECK(!store->queued(1, 10));
    CHECK(store->queued(2, 65536));
    store->drop_level(2);  // the second chunk stays: one of its states is at level 4
    CHECK(store->queued(4, 65536 + 7));
    CHECK(store->queued(3, 2 * 65536));
    store->drop_level(4);  // levels up to 4 expanded (3 among them): the second and third chunks go, the last (not full) stays
    CHECK(!store->queued(4, 65536 + 7));
    CHECK(!store->queued(3, 2 * 65536));
    CHECK(store->queued(5, kStates - 1));
    CHECK(std::ranges::equal(store->sleep(5, kStates - 1), std::vector{t(2), t(4)}));
  }
  CHECK(restored.bytes() < v.bytes() + 4096);
}

TEST_CASE("a checkpoint whose chunk being filled lets its positions go is refused") {
  TempFile file;
  {
    CheckpointOut out(file.path);
    out.pod<std::uint64_t>(3);  // the last level of the one chunk's states
    out.pod<std::uint8_t>(0);   // not held: only a full chunk may go
    out.commit();
  }
  CheckpointIn in(file.path);
  QueuePositions positions;
  CHECK_THROWS_AS(positions.restore(in, 5), CheckpointError);
}
