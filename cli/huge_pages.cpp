// The process's allocation policy, linked into the command line and the
// benchmarks (never into the libraries): memory from `new` is advised as
// transparent huge pages (madvise MADV_HUGEPAGE), much as glibc does when
// GLIBC_TUNABLES has glibc.malloc.hugetlb=1:
// - a block of 32 MiB or more gets a mapping of its own (M_MMAP_THRESHOLD),
//   advised when `new` hands it out;
// - a smaller block comes from the main heap, which grows by 32 MiB at a
//   time (M_TOP_PAD), and `new` advises each growth of the program break as
//   soon as it sees it, before the pages are touched. The heap keeps up to
//   64 MiB free at its top rather than giving it back (M_TRIM_THRESHOLD), so
//   a block freed and asked for again, as a run's result, is not faulted in
//   again.
// These are the bounds glibc's own threshold moves up to as large blocks are
// freed; glibc starts at 128 KiB (a mapping of its own, faulted in 4 KiB at a
// time) and grows the heap 128 KiB at a time, too little for a 2 MiB page.
//
// Why: a graph of a million nodes is read into about 2 GiB of vectors and
// strings (the file's text, the spec, the Program, the compiled graph),
// touched once each. On this project's virtual machines a 4 KiB page fault
// costs about 13 us and every TLB miss walks two page tables; with 2 MiB
// pages loading a 1M-node graph takes several times less (docs/performance.md,
// "Loading large graphs"). The resident set stays the same: a huge page is
// taken only where the heap is being filled.
//
// While a BackLargeBlocks (huge_pages.hpp) lives, as a graph loads, a block
// of 32 MiB or more is also backed at once, and the heap's pages as its blocks
// reach them, a few MiB at a time, on two threads: the Program and the
// compiled graph are built on one thread, and the first process after the
// host idles pays for every page it backs. The heap's free top is not
// backed: what a load never uses it never pays for.
// tests/cli/test_huge_pages.cpp checks the advice is given, and the backing.
// Where the kernel's setting is `never` the advice does nothing; under
// `always` it is what happens anyway. The arenas glibc gives other threads
// (heaps of their own when the main one is busy) are left as they are.
//
// Only operator new(size_t) is replaced: the nothrow and array forms call it,
// and the default operator delete calls free(), which is what this one's
// blocks need. The aligned forms (align_val_t, for an over-aligned type such
// as the explorer's cache-line effects) go to aligned_alloc, unadvised; none
// of their blocks is large. Sanitizer and fuzzing builds leave this file out
// (cli/CMakeLists.txt): their runtimes bring their own operator new.
#include "cli/huge_pages.hpp"
#include "support/back_pages.hpp"

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <new>

#include <malloc.h>
#include <sys/mman.h>
#include <unistd.h>

namespace {

constexpr std::uintptr_t kHugePage = std::uintptr_t{2} << 20;
constexpr std::size_t kOwnMapping = std::size_t{32} << 20;
constexpr std::size_t kHeapStep = std::size_t{32} << 20;
constexpr std::size_t kHeapKeeps = std::size_t{64} << 20;

// The whole 2 MiB pages inside [p, p + n).
void advise_huge_pages(std::uintptr_t p, std::size_t n) {
  const auto begin = (p + kHugePage - 1) & ~(kHugePage - 1);
  const auto end = (p + n) & ~(kHugePage - 1);
  if (end > begin) madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);  // advice: failure is harmless
}

// The BackLargeBlocks alive.
std::atomic<int> backing{0};

// The main heap is advised up to here (a huge page boundary).
std::atomic<std::uintptr_t> heap_advised{0};

// Where the main heap ended when the policy was set: blocks from here up to
// its top are the main heap's, the ones the policy backs.
std::uintptr_t heap_start = 0;

// The main heap is backed up to here (a multiple of kBackAhead, or the
// heap's top) while BackLargeBlocks live; 0 when the first of them starts.
std::atomic<std::uintptr_t> heap_backed{0};

// The heap is backed up to the first multiple of this past a block's end:
// the small blocks after it take pages backed already, and one helper thread
// backs up to some MiB at a time rather than a page.
constexpr std::uintptr_t kBackAhead = std::uintptr_t{4} << 20;

// Advises the whole huge pages the main heap grew by since the last call
// (it ends at `top`). When the heap has shrunk (glibc gave its top back),
// what grows again from there is advised as it grows.
void advise_heap_growth(std::uintptr_t top) {
  top &= ~(kHugePage - 1);
  auto done = heap_advised.load(std::memory_order_relaxed);
  if (top == done || !heap_advised.compare_exchange_strong(done, top, std::memory_order_relaxed)) return;
  // Before set_heap_policy has run (a constructor that allocates runs first,
  // in a shared library or in this executable), the heap's start is not
  // known: it is advised from here on, never from address 0, which would
  // advise every mapping below the heap (the executable's own included).
  if (done != 0 && top > done) advise_huge_pages(done, top - done);
}

// While a BackLargeBlocks lives, backs the main heap's pages from block
// [p, p + n) up to the first multiple of kBackAhead past its end, if the main
// heap holds it. Only what blocks take: the 32 MiB glibc keeps free at the
// top as it grows stay unbacked until a block takes them (the heap ends at
// `top`). What the heap gave back, by shrinking below what was backed while
// one BackLargeBlocks lived or between two, is backed again as blocks take it.
void back_heap_block(std::uintptr_t p, std::size_t n, std::uintptr_t top) {
  if (p < heap_start || p >= top) return;  // a thread's arena
  const auto want = std::min(top, (p + n + kBackAhead - 1) & ~(kBackAhead - 1));
  auto done = heap_backed.load(std::memory_order_relaxed);
  const auto backed = done > top ? 0 : done;  // past the top: the heap gave back pages it had backed
  const auto from = std::max({backed, p & ~(kHugePage - 1), heap_start});
  if (want <= from || !heap_backed.compare_exchange_strong(done, want, std::memory_order_relaxed)) return;
  tfsem::back_pages(reinterpret_cast<void*>(from), want - from, 2);
}

[[gnu::constructor]] void set_heap_policy() {
  mallopt(M_MMAP_THRESHOLD, static_cast<int>(kOwnMapping));
  mallopt(M_TOP_PAD, static_cast<int>(kHeapStep));
  mallopt(M_TRIM_THRESHOLD, static_cast<int>(kHeapKeeps));
  // The heap is advised from where it ends now.
  heap_start = reinterpret_cast<std::uintptr_t>(sbrk(0));
  heap_advised.store(heap_start & ~(kHugePage - 1));
}

}  // namespace

void* operator new(std::size_t n) {
  for (;;) {
    if (void* p = std::malloc(n == 0 ? 1 : n)) {
      if (n >= kOwnMapping) {
        advise_huge_pages(reinterpret_cast<std::uintptr_t>(p), n);
        if (backing.load(std::memory_order_relaxed) > 0) tfsem::back_pages(p, n, 2);
      } else {
        // sbrk(0) reads the program break glibc keeps; it makes no system call.
        const auto top = reinterpret_cast<std::uintptr_t>(sbrk(0));
        advise_heap_growth(top);
        if (backing.load(std::memory_order_relaxed) > 0) back_heap_block(reinterpret_cast<std::uintptr_t>(p), n, top);
      }
      return p;
    }
    const auto handler = std::get_new_handler();
    if (!handler) throw std::bad_alloc();
    handler();
  }
}

tfsem::cli::BackLargeBlocks::BackLargeBlocks() {
  // The heap may have shrunk since the last one: what it holds is backed afresh as blocks take it.
  if (backing.fetch_add(1, std::memory_order_relaxed) == 0) heap_backed.store(0, std::memory_order_relaxed);
}
tfsem::cli::BackLargeBlocks::~BackLargeBlocks() { backing.fetch_sub(1, std::memory_order_relaxed); }
