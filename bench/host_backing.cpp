// What memory costs a process the first time it touches it, on this host:
// the floor under a cold load of a 1M-node graph (docs/benchmarks.md,
// "Loading large graphs"). A block of --mib MiB is mapped, advised as huge
// pages as the executables' allocation policy advises theirs
// (cli/huge_pages.cpp), and written one byte every 4 KiB by one thread, then
// by two, each its half:
// - first: after --idle seconds with nothing running (default 50), when this
//   project's virtual machines have handed their free memory back to the
//   host, which backs each page again as it is first written;
// - again: the block unmapped and mapped afresh right after, its pages ones
//   the guest kernel was just given back and hands out again before the host
//   takes them.
// The difference is what a cold load pays on top of a warm one for each GiB
// it touches, whatever it computes. --idle 0 measures the warm cost alone.
// Usage: host_backing [--mib N] [--idle S]
#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>

#include <sys/mman.h>

namespace {

using Clock = std::chrono::steady_clock;

// Maps `bytes`, writes one byte in every 4 KiB of it from `threads` threads
// (each a contiguous share), unmaps it; the ms the writes took.
double touch_fresh(std::size_t bytes, unsigned threads) {
  void* block = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (block == MAP_FAILED) {
    std::fprintf(stderr, "host_backing: cannot map %zu MiB\n", bytes >> 20);
    std::exit(1);
  }
  madvise(block, bytes, MADV_HUGEPAGE);  // advice: failure is harmless
  auto* bytes_at = static_cast<volatile char*>(block);
  const std::size_t share = (bytes / threads + 4095) & ~std::size_t{4095};
  const auto write_share = [&](unsigned k) {
    for (std::size_t at = k * share; at < std::min(bytes, (k + 1) * share); at += 4096) bytes_at[at] = 1;
  };
  const auto start = Clock::now();
  {
    std::vector<std::jthread> helpers;
    for (unsigned k = 1; k < threads; ++k) helpers.emplace_back(write_share, k);
    write_share(0);
  }
  const double ms = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
  munmap(block, bytes);
  return ms;
}

[[noreturn]] void usage() {
  std::fprintf(stderr, "usage: host_backing [--mib N, 64 to 16384] [--idle S, at most 600]\n");
  std::exit(2);
}

}  // namespace

int main(int argc, char** argv) {
  std::size_t mib = 1024;
  unsigned idle = 50;
  for (int i = 1; i < argc; ++i) {
    if (i + 1 >= argc) usage();
    if (std::strcmp(argv[i], "--mib") == 0) mib = std::strtoull(argv[++i], nullptr, 10);
    else if (std::strcmp(argv[i], "--idle") == 0) idle = static_cast<unsigned>(std::strtoul(argv[++i], nullptr, 10));
    else usage();
  }
  if (mib < 64 || mib > 16384 || idle > 600) usage();
  std::printf("%zu MiB, written one byte every 4 KiB, after %u s idle (first) and right after (again)\n\n", mib, idle);
  std::printf("| threads | first ms | first s per GiB | again ms | again s per GiB |\n|---|---|---|---|---|\n");
  const double gib = static_cast<double>(mib) / 1024;
  for (const unsigned threads : {1U, 2U}) {
    std::this_thread::sleep_for(std::chrono::seconds(idle));
    const double first = touch_fresh(mib << 20, threads);
    const double again = touch_fresh(mib << 20, threads);
    std::printf("| %u | %.0f | %.2f | %.0f | %.2f |\n", threads, first, first / 1e3 / gib, again, again / 1e3 / gib);
    std::fflush(stdout);
  }
}
