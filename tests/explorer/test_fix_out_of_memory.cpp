// An allocation that fails while fixes are verified stops the search for
// fixes, out of memory on its stop token, with the fixes verified before it
// kept; it never escapes suggest_fixes. Every allocation of the search for
// fixes is made to fail in turn (the k-th, for each k), through this
// executable's own operator new.
#include <doctest/doctest.h>

#include "explorer/fix.hpp"
#include "support/graphs.hpp"

#include <atomic>
#include <cstdlib>
#include <new>

namespace {
std::atomic<long> allocations_left{-1};  // the allocations before one fails; -1: none fails
}  // namespace

void* operator new(std::size_t n) {
  if (allocations_left.load(std::memory_order_relaxed) >= 0 && allocations_left.fetch_sub(1) == 0) throw std::bad_alloc();
  if (void* p = std::malloc(n == 0 ? 1 : n)) return p;
  throw std::bad_alloc();
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }

using namespace tfsem;
using namespace tfsem::explorer;

TEST_CASE("an allocation failing anywhere in the verification of fixes stops it, out of memory") {
  const Semantics sem(test::program_file("models/figure-4-lost-update.json"));
  const auto result = explore(sem);
  REQUIRE(result.complete);
  REQUIRE_FALSE(result.deterministic());
  const auto whole = suggest_fixes(sem, result);
  REQUIRE_FALSE(whole.empty());
  long stopped = 0, k = 0;
  for (bool done = false; !done; k += 1 + k / 16) {  // every allocation early on, then sparser
    StopToken token;
    FixOptions o;
    o.explore.limits.stop = &token;
    std::vector<Fix> fixes;
    allocations_left = k;
    CHECK_NOTHROW(fixes = suggest_fixes(sem, result, o));
    allocations_left = -1;
    if (token.stopped()) {
      ++stopped;
      CHECK(token.reason() == StopReason::out_of_memory);
      CHECK(fixes.size() <= whole.size());
    } else {
      done = true;  // no allocation failed: the search for fixes completed
      CHECK(fixes.size() == whole.size());
    }
  }
  MESSAGE(stopped << " failing allocations stopped the search for fixes");
  CHECK(stopped > 10);
}
