// Memory backed before it is written, on several cores.
#pragma once

#include <cstddef>

namespace tfsem {

// Backs the whole pages of [p, p + bytes) now, `parts` threads each asking
// the kernel for an equal share (MADV_POPULATE_WRITE). On a virtual machine
// whose host hands it memory as it is first touched, backing a page costs
// far more than writing it (docs/performance.md, "What the host charges"),
// and unlike one thread's writes it spreads over the cores. Only the pages:
// nothing is written. Without the advice (a kernel before 5.14), or when a
// thread cannot start, the pages are backed as they are first written.
void back_pages(void* p, std::size_t bytes, std::size_t parts);

}  // namespace tfsem
