// What two threads give on this machine when they share nothing: the
// ceiling against which the explorer's two-thread speed-up on lost-update-8
// is read (docs/explorer.md, docs/benchmarks.md). Each kind of work is run
// twice on one thread, then once on each of two threads, and the ratio of
// the times printed:
// - table: random inserts into an open-addressed table of 8-byte keys, 1/4
//   full with each key inserted twice, as large as --mib (default 256, at
//   most 16384; two tables are held at once): bound by memory, as the
//   explorer's merge is. The tables are allocated and touched before the
//   timing, so it counts the inserts, not the kernel backing fresh pages;
// - latency: one chain of dependent multiplies and shifts (bound by latency);
// - throughput: eight independent chains of multiplies (bound by the
//   multiplier, which a hyperthread sibling would share).
// Then what the two threads pay when they do share: the time a cache line
// takes to go from one core to the other and back (one thread writes it,
// the other answers). On this project's virtual machine the host moves its
// two cores nearer and further apart in phases of minutes (about 80 ns, or
// about 400), which shows in the explorer's two threads and nowhere in the
// table above. --watch prints that round trip four times a second, after
// the time in milliseconds since the epoch, until stopped: run beside a
// benchmark, it tells which phase each run fell in (docs/explorer.md).
// Usage: two_cores [--mib N] [--reps R] [--watch] (the best of R runs of each, default 3)
#include "support/hash.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <thread>
#include <vector>

#if defined(__linux__)
#include <pthread.h>
#include <sched.h>
#endif

namespace {

using Clock = std::chrono::steady_clock;
using tfsem::mix64;

std::atomic<std::uint64_t> sink{0};  // keeps the work from being optimized away

// Fills t, empty (all 0) and a power of two in size.
void table(std::vector<std::uint64_t>& t, std::uint64_t seed) {
  const auto mask = t.size() - 1, keys = t.size() / 4;
  std::uint64_t found = 0;
  for (std::size_t i = 0; i < 2 * keys; ++i) {
    const auto k = mix64(seed + i % keys) | 1;
    auto p = k & mask;
    while (t[p] != 0 && t[p] != k) p = (p + 1) & mask;
    found += t[p] == k;
    t[p] = k;
  }
  sink += found;
}

void latency(std::uint64_t seed) {
  auto x = seed;
  for (std::uint64_t i = 0; i < 300'000'000; ++i) x = mix64(x + i);
  sink += x;
}

void throughput(std::uint64_t seed) {
  std::uint64_t a[8];
  for (std::uint64_t j = 0; j < 8; ++j) a[j] = seed + j;
  for (std::uint64_t i = 0; i < 200'000'000; ++i)
    for (std::uint64_t j = 0; j < 8; ++j) a[j] = a[j] * 0x9E3779B97F4A7C15ULL + j;
  std::uint64_t x = 0;
  for (auto v : a) x ^= v;
  sink += x;
}

// Runs the calling thread on core `cpu` alone, where the system lets it: the
// round trip is between two cores, never two threads taking turns on one.
void pin(int cpu) {
#if defined(__linux__)
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  pthread_setaffinity_np(pthread_self(), sizeof set, &set);
#else
  static_cast<void>(cpu);
#endif
}

// A cache line passed between this thread, on core 0, and one on core 1:
// round(n) writes the line n times, each time waiting for the other thread
// to answer, and gives the mean round trip in ns. Between rounds the other
// thread sleeps, so that beside a benchmark it takes nothing from it.
class LineTrip {
 public:
  LineTrip() : other_([this](const std::stop_token& stop) { answer(stop); }) { pin(0); }
  ~LineTrip() {
    other_.request_stop();
    awake_.store(true);
    awake_.notify_one();
  }
  double round(std::size_t n) {
    awake_.store(true);
    awake_.notify_one();
    constexpr std::size_t kWarm = 100;  // the other thread woken and on its core
    Clock::time_point start;
    for (std::size_t i = 0; i < kWarm + n; ++i) {
      if (i == kWarm) start = Clock::now();
      const auto v = line_.load(std::memory_order_relaxed) + 1;  // odd: a question
      line_.store(v, std::memory_order_release);
      while (line_.load(std::memory_order_acquire) == v) {
      }
    }
    const auto ns = std::chrono::duration<double, std::nano>(Clock::now() - start).count() / static_cast<double>(n);
    awake_.store(false);
    return ns;
  }

 private:
  void answer(const std::stop_token& stop) {
    pin(1);
    while (!stop.stop_requested()) {
      if (const auto v = line_.load(std::memory_order_acquire); v % 2 == 1) line_.store(v + 1, std::memory_order_release);
      else if (!awake_.load(std::memory_order_relaxed)) awake_.wait(false);
    }
  }
  alignas(64) std::atomic<std::uint64_t> line_{0};
  alignas(64) std::atomic<bool> awake_{false};
  std::jthread other_;
};

// Beside a benchmark, a thread that waits for a core can stretch one
// measurement: the median of ten short ones, four times a second.
[[noreturn]] void watch() {
  LineTrip trip;
  for (;;) {
    std::array<double, 10> ns{};
    for (auto& x : ns) x = trip.round(100);
    std::nth_element(ns.begin(), ns.begin() + 5, ns.end());
    const auto now = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch());
    std::printf("%lld %.0f\n", static_cast<long long>(now.count()), ns[5]);
    std::fflush(stdout);
    std::this_thread::sleep_for(std::chrono::milliseconds(250));
  }
}

double seconds(const std::function<void()>& f) {
  const auto t = Clock::now();
  f();
  return std::chrono::duration<double>(Clock::now() - t).count();
}

// `reset` runs before each timing, untimed.
void row(const char* name, const std::function<void(std::uint64_t)>& work, int reps,
         const std::function<void()>& reset = [] {}) {
  double one = 1e300, two = 1e300;
  for (int r = 0; r < reps; ++r) {
    reset();
    one = std::min(one, seconds([&] {
                     work(1);
                     work(2);
                   }));
    reset();
    two = std::min(two, seconds([&] {
                     std::jthread other([&] { work(1); });
                     work(2);
                   }));
  }
  std::printf("| %s | %.2f | %.2f | %.2f |\n", name, one, two, one / two);
  std::fflush(stdout);
}

[[noreturn]] void usage() {
  std::fprintf(stderr, "usage: two_cores [--mib N, a power of two up to 16384] [--reps R] [--watch]\n");
  std::exit(2);
}

}  // namespace

int main(int argc, char** argv) {
  std::size_t mib = 256;
  int reps = 3;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--watch") == 0) watch();
    if (i + 1 >= argc) usage();
    if (std::strcmp(argv[i], "--mib") == 0) mib = std::strtoull(argv[++i], nullptr, 10);
    else if (std::strcmp(argv[i], "--reps") == 0) reps = std::atoi(argv[++i]);
    else usage();
  }
  if (mib == 0 || mib > 16384 || (mib & (mib - 1)) != 0 || reps < 1) usage();  // a power of two: the table's mask
  std::vector<std::uint64_t> tables[2];
  for (auto& t : tables) t.resize((mib << 20) / sizeof(std::uint64_t));
  std::printf("best of %d\n\n", reps);
  std::printf("| work | one thread, twice (s) | two threads, once each (s) | ratio |\n|---|---|---|---|\n");
  row("table", [&](std::uint64_t seed) { table(tables[seed - 1], seed); }, reps, [&] {
    for (auto& t : tables) std::fill(t.begin(), t.end(), 0);
  });
  row("latency", latency, reps);
  row("throughput", throughput, reps);
  LineTrip line;
  double trip = 1e300;
  for (int r = 0; r < reps; ++r) trip = std::min(trip, line.round(100'000));
  std::printf("\na cache line from one thread to the other and back: %.0f ns\n", trip);
}
