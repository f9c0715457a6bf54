#include <doctest/doctest.h>

#include <atomic>
#include <map>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "support/boxed.hpp"
#include "support/compact_string.hpp"
#include "support/copy_on_write.hpp"

using namespace tfsem;

namespace {

// Strings of every length around the 15 characters kept in place.
std::string text(std::size_t n) {
  std::string s;
  for (std::size_t i = 0; i < n; ++i) s.push_back(static_cast<char>('a' + i % 26));
  return s;
}

}  // namespace

TEST_CASE("a compact string keeps its text in 16 bytes, in place up to 15 characters") {
  CHECK(sizeof(CompactString) == 16);
  for (std::size_t n : {0U, 1U, 7U, 14U, 15U, 16U, 17U, 100U, 5000U}) {
    const auto want = text(n);
    const CompactString s(want);
    CHECK(s.size() == n);
    CHECK(s.empty() == (n == 0));
    CHECK(s.view() == want);
    CHECK(s.str() == want);
    CHECK(s.data()[n] == '\0');  // NUL-terminated both in place and in a block
    CHECK(s == want);
    CHECK(s == want.c_str());
    CHECK(std::string(s) == want);
  }
}

TEST_CASE("a compact string copies, moves and swaps its text, in place and in a block") {
  for (std::size_t n : {3U, 15U, 16U, 40U}) {
    for (std::size_t m : {0U, 9U, 15U, 31U}) {
      const auto a = text(n), b = std::string(m, 'z');
      CompactString s(a), t(b);
      CompactString copy = s;
      CHECK(copy == a);
      CHECK(s == a);
      t = s;  // a copy over a string of either kind
      CHECK(t == a);
      t = b;
      CompactString moved = std::move(t);
      CHECK(moved == b);
      CHECK(t.empty());  // NOLINT(bugprone-use-after-move): a moved-from string is empty
      s.swap(moved);
      CHECK(s == b);
      CHECK(moved == a);
      s = std::move(moved);
      CHECK(s == a);
      const auto& same = s;
      s = same;  // assigned itself, it keeps its text
      CHECK(s == a);
    }
  }
}

TEST_CASE("a compact string compares, orders, joins and hashes as its text") {
  const CompactString a("node-a"), b(text(20));
  CHECK((a < b) == (std::string("node-a") < text(20)));
  CHECK(a < "node-b");
  CHECK("node-" < a);
  CHECK(a != b);
  CHECK(a + ":0" == "node-a:0");
  CHECK("edge '" + a + "'" == "edge 'node-a'");
  CHECK(std::hash<CompactString>{}(b) == std::hash<std::string_view>{}(text(20)));
  std::map<CompactString, int, std::less<>> by_name{{a, 1}, {b, 2}};
  CHECK(by_name.find(std::string_view("node-a"))->second == 1);
}

// How an edge's declaration holds what few edges declare (its fetch name).
TEST_CASE("a boxed value is 8 bytes, copied whole and moved out") {
  static_assert(sizeof(Boxed<CompactString>) == 8);
  Boxed<CompactString> none;
  CHECK_FALSE(none);
  Boxed<CompactString> name = "a fetch name longer than fifteen";
  REQUIRE(name);
  auto copy = name;
  CHECK(*copy == "a fetch name longer than fifteen");
  CHECK(&*copy != &*name);  // a block of its own
  copy = Boxed<CompactString>("other");  // assigned over a value
  CHECK(*copy == "other");
  CHECK(*name == "a fetch name longer than fifteen");
  none = copy;  // over none
  CHECK(*none == "other");
  const auto& same = none;
  none = same;  // over itself
  CHECK(*none == "other");
  copy = Boxed<CompactString>();  // none over a value
  CHECK_FALSE(copy);
  auto moved = std::move(name);
  CHECK(*moved == "a fetch name longer than fifteen");
  CHECK_FALSE(name);  // NOLINT(bugprone-use-after-move): moved out, its box with it
  Boxed<CompactString> empty = std::optional<std::string>("");  // given, and empty: not absent
  CHECK(empty);
  CHECK(empty->empty());
  moved.reset();
  CHECK_FALSE(moved);
  CHECK_FALSE(Boxed<CompactString>(std::optional<std::string>()));
}

// How a node's declaration holds the attributes its reader gave many nodes.
TEST_CASE("a value shared copy on write is 8 bytes, read by every copy and changed by one alone") {
  static_assert(sizeof(CopyOnWrite<std::vector<int>>) == 8);
  CopyOnWrite<std::vector<int>> none;
  CHECK(none->empty());
  CHECK_FALSE(none.shares_with(none));
  CopyOnWrite<std::vector<int>> empty = std::vector<int>{};  // kept as none: no block
  CHECK_FALSE(empty.shares_with(empty));
  CopyOnWrite<std::vector<int>> a = std::vector<int>{1, 2};
  auto b = a;
  CHECK(b.shares_with(a));
  CHECK(*b == std::vector<int>{1, 2});
  b.edit().push_back(3);  // b's own copy: a is unchanged
  CHECK_FALSE(b.shares_with(a));
  CHECK(*a == std::vector<int>{1, 2});
  CHECK(*b == std::vector<int>{1, 2, 3});
  auto* own = &b.edit();  // no other holder: changed in place
  CHECK(own == &*b);
  none.edit().push_back(4);
  CHECK(*none == std::vector<int>{4});
  auto moved = std::move(a);
  CHECK(*moved == std::vector<int>{1, 2});
  CHECK(a->empty());  // NOLINT(bugprone-use-after-move): moved out, its block with it
  a = moved;  // assigned over none, then over itself
  const auto& self = a;
  a = self;
  CHECK(a.shares_with(moved));
  // Copies made and dropped on several threads at once: the block is freed once (ASan, TSan).
  std::vector<std::thread> threads;
  std::atomic<int> misread{0};
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&moved, &misread] {
      for (int i = 0; i < 10000; ++i) {
        const auto copy = moved;
        if (copy->size() != 2) ++misread;
      }
    });
  for (auto& t : threads) t.join();
  CHECK(misread == 0);
  CHECK(*moved == std::vector<int>{1, 2});
}
