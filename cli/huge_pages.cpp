// The process's allocation policy, linked into the command line and the
// benchmarks (never into the libraries): every block of 4 MiB or more that
// `new` hands out is advised as transparent huge pages (madvise
// MADV_HUGEPAGE), as glibc does for every block when GLIBC_TUNABLES has
// glibc.malloc.hugetlb=1.
//
// Why: a graph of a million nodes is read into about 2 GiB of vectors (the
// file's text, the spec, the Program, the compiled graph), touched once each.
// On this project's virtual machines a 4 KiB page fault costs about 13 us and
// every TLB miss walks two page tables; with 2 MiB pages, loading a 1M-node
// graph took 1.9 to 3.8 times less time (README, "Loading large graphs").
// tests/cli/test_huge_pages.cpp checks the advice is given.
// Where the kernel's setting is `never` the advice does nothing; under
// `always` it is what happens anyway. Small blocks are left alone: a 2 MiB
// page for them would only bloat the resident set.
//
// Only operator new(size_t) is replaced: the nothrow and array forms call it,
// and the default operator delete calls free(), which is what this one's
// blocks need. Sanitizer and fuzzing builds leave this file out
// (cli/CMakeLists.txt): their runtimes bring their own operator new.
#include <cstdint>
#include <cstdlib>
#include <new>

#include <sys/mman.h>

namespace {

constexpr std::uintptr_t kHugePage = std::uintptr_t{2} << 20;
constexpr std::size_t kAdviseFrom = std::size_t{4} << 20;

// The whole 2 MiB pages inside [p, p + n).
void advise_huge_pages(void* p, std::size_t n) {
  const auto begin = (reinterpret_cast<std::uintptr_t>(p) + kHugePage - 1) & ~(kHugePage - 1);
  const auto end = (reinterpret_cast<std::uintptr_t>(p) + n) & ~(kHugePage - 1);
  if (end > begin) madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);  // advice: failure is harmless
}

}  // namespace

void* operator new(std::size_t n) {
  for (;;) {
    if (void* p = std::malloc(n == 0 ? 1 : n)) {
      if (n >= kAdviseFrom) advise_huge_pages(p, n);
      return p;
    }
    const auto handler = std::get_new_handler();
    if (!handler) throw std::bad_alloc();
    handler();
  }
}
