// The executables' allocation policy (cli/huge_pages.cpp): a block of 32 MiB
// or more from new lies in a mapping of its own advised as huge pages (VmFlags
// "hg" in /proc/self/smaps), and smaller blocks lie in the heap, advised as it
// grows; while a BackLargeBlocks lives, a large block is resident as soon as
// new hands it out, and so are the heap's pages under its small blocks, but
// not the heap's free top. Sanitizer and fuzzing builds
// leave the policy out (TFSEM_HUGE_PAGES undefined), and a kernel without
// transparent huge pages or /proc/self/smaps cannot show it: these pass with a
// message.
#include <doctest/doctest.h>

#include "cli/huge_pages.hpp"

#include <malloc.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <fstream>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#ifndef TFSEM_HUGE_PAGES

TEST_CASE("blocks from new lie in memory advised as huge pages") {
  MESSAGE("this build keeps its sanitizers' operator new: nothing to check");
}

#else

namespace {

// Whether the mapping holding p is advised as huge pages; nullopt when
// /proc/self/smaps does not say.
std::optional<bool> advised_huge(const void* p) {
  std::ifstream smaps("/proc/self/smaps");
  if (!smaps) return std::nullopt;
  const auto at = reinterpret_cast<std::uintptr_t>(p);
  bool inside = false;
  for (std::string line; std::getline(smaps, line);) {
    std::uintptr_t begin = 0, end = 0;
    char dash = 0;
    std::istringstream head(line);
    if (head >> std::hex >> begin >> dash >> end && dash == '-') {  // a mapping's first line: "begin-end perms ..."
      inside = begin <= at && at < end;
      continue;
    }
    if (inside && line.rfind("VmFlags:", 0) == 0) return (line + " ").find(" hg ") != std::string::npos;
  }
  return std::nullopt;
}

const auto page = static_cast<std::uintptr_t>(sysconf(_SC_PAGESIZE));

// How many whole pages inside [begin, end) are not resident now, or nullopt
// where mincore cannot say.
std::optional<std::size_t> missing(std::uintptr_t begin, std::uintptr_t end) {
  begin = (begin + page - 1) & ~(page - 1);
  end &= ~(page - 1);
  if (end <= begin) return 0;
  std::vector<unsigned char> in((end - begin) / page);
  if (mincore(reinterpret_cast<void*>(begin), end - begin, in.data()) != 0) return std::nullopt;
  std::size_t n = 0;
  for (const auto v : in) n += (v & 1U) == 0 ? 1 : 0;
  return n;
}
std::optional<std::size_t> missing(const char* p, std::size_t bytes) {
  return missing(reinterpret_cast<std::uintptr_t>(p), reinterpret_cast<std::uintptr_t>(p) + bytes);
}

// Whether this kernel backs memory on advice (MADV_POPULATE_WRITE, Linux 5.14).
bool backs_on_advice() {
#ifdef MADV_POPULATE_WRITE
  void* p = mmap(nullptr, page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) return false;
  const bool backs = madvise(p, page, MADV_POPULATE_WRITE) == 0;
  munmap(p, page);
  return backs;
#else
  return false;
#endif
}

}  // namespace

TEST_CASE("while a graph loads, the heap is backed as its blocks take it, and its free top is not") {
  if (!backs_on_advice()) {
    MESSAGE("this kernel does not back memory on advice (MADV_POPULATE_WRITE, Linux 5.14): nothing to check");
    return;
  }
  // The first case in this file: the heap has not grown yet, and what it
  // grows by below is fresh.
  const tfsem::cli::BackLargeBlocks backing;
  // 8 MiB of 4 MiB blocks, none written: glibc writes a block's header, in
  // its first page only (a 2 MiB page where the heap is advised as huge
  // pages), so most of each block is resident only if backed. The heap grows
  // by them and by the 32 MiB glibc keeps free at its top.
  constexpr std::size_t kBlock = std::size_t{4} << 20;
  std::vector<std::unique_ptr<char[]>> blocks(2);
  for (auto& block : blocks) block.reset(new char[kBlock]);
  const auto first = reinterpret_cast<std::uintptr_t>(blocks.front().get());
  const auto last = reinterpret_cast<std::uintptr_t>(blocks.back().get()) + kBlock;
  const auto top = reinterpret_cast<std::uintptr_t>(sbrk(0));
  const auto taken = missing(first, last);
  if (!taken) {
    MESSAGE("mincore cannot say which pages are resident: nothing to check");
    return;
  }
  if (last < first || top < last + (std::uintptr_t{12} << 20)) {
    MESSAGE("the blocks do not lie at the heap's top, below a free top of 12 MiB or more: nothing to check");
    return;
  }
  CHECK(*taken == 0);
  // Backed a few MiB past the last block at most: the free top above is not.
  const auto above = (last + (std::uintptr_t{8} << 20) + page - 1) & ~(page - 1);
  const auto end = top & ~(page - 1);
  CHECK(missing(above, end) == (end - above) / page);
}

TEST_CASE("blocks from new lie in memory advised as huge pages") {
  if (!std::ifstream("/sys/kernel/mm/transparent_hugepage/enabled")) {
    MESSAGE("this kernel has no transparent huge pages: nothing to check");
    return;
  }
  const auto large = std::make_unique<char[]>(std::size_t{64} << 20);
  const auto large_advised = advised_huge(large.get() + (std::size_t{32} << 20));  // a whole 2 MiB page inside it
  if (!large_advised) {
    MESSAGE("/proc/self/smaps does not say: nothing to check");
    return;
  }
  CHECK(*large_advised);

  // 64 MiB of small blocks: the heap has grown by at least one step of
  // 32 MiB, advised when it grew, and the latest block lies in it.
  const auto small_blocks = [] {
    std::vector<std::unique_ptr<char[]>> small(std::size_t{64} << 10);
    for (auto& block : small) block = std::make_unique<char[]>(1024);
    return small;
  };
  CHECK(advised_huge(small_blocks().back().get()) == true);

  // The heap gives its top back (malloc_trim), then grows again over the
  // same addresses: what it grows by is advised again.
  { const auto freed = small_blocks(); }
  malloc_trim(0);
  const auto again = small_blocks();
  CHECK(advised_huge(again.back().get()) == true);
}

TEST_CASE("the executable's own mappings are not advised") {
  // Blocks taken before the policy is set (by constructors that run first:
  // doctest registers this file's cases so) must not make it advise
  // everything from address 0 to the heap's top. A constant lies in the executable's own
  // mapping, which is file-backed, not heap.
  static const char constant[] = "in the executable";
  if (const auto advised = advised_huge(constant)) CHECK_FALSE(*advised);
  else MESSAGE("/proc/self/smaps does not say: nothing to check");
}

TEST_CASE("while a graph loads, a large block is backed as new hands it out") {
  constexpr std::size_t kBlock = std::size_t{64} << 20;
  const std::unique_ptr<char[]> lazy(new char[kBlock]);  // default-initialized: nothing written
  const auto lazy_missing = missing(lazy.get(), kBlock);
  if (!lazy_missing) {
    MESSAGE("mincore cannot say which pages are resident: nothing to check");
    return;
  }
  CHECK(*lazy_missing > kBlock / page / 2);
  const tfsem::cli::BackLargeBlocks backing;
  const std::unique_ptr<char[]> backed(new char[kBlock]);
  if (!backs_on_advice()) {
    MESSAGE("this kernel does not back memory on advice (MADV_POPULATE_WRITE, Linux 5.14): nothing to check");
    return;
  }
  CHECK(missing(backed.get(), kBlock) == 0);
}

#endif
