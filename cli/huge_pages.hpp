// What code sees of the executables' allocation policy (huge_pages.cpp).
#pragma once

namespace tfsem::cli {

// While one lives, a block of 32 MiB or more that `new` hands out, and the
// pages of the heap the smaller blocks come from as they reach them (a few
// MiB at a time, not the heap's free top), are backed at once, half by the
// calling thread and half by a helper thread, rather than page by page as
// they are first written. Loading a large graph
// builds its largest arrays on one thread (the Program, the compiled graph),
// and where fresh memory is slow to back (docs/performance.md, "What the host
// charges") two cores back it in about half the time. Only for a load: a
// block backed at once is resident at once, so a vector that grows by
// doubling would count its empty half (as --max-memory reads the resident
// set). Builds without the policy (sanitizers, fuzzing) do nothing.
class BackLargeBlocks {
 public:
#ifdef TFSEM_HUGE_PAGES
  BackLargeBlocks();
  ~BackLargeBlocks();
#else
  BackLargeBlocks() {}  // user-provided (so is the destructor): a scope's variable is not "unused"
  ~BackLargeBlocks() {}
#endif
  BackLargeBlocks(const BackLargeBlocks&) = delete;
  BackLargeBlocks& operator=(const BackLargeBlocks&) = delete;
};

}  // namespace tfsem::cli
