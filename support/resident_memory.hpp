// The memory a process holds and the most it may hold: its resident set (the
// figure `ps` and `time -v` report as RSS), and the bounds the machine sets
// on it, of which the smallest, less a margin, is the default --max-memory.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace tfsem {

// The process's resident set in bytes, if the system says (/proc/self/statm).
std::optional<std::uint64_t> resident_set_bytes();
// The part of it that is anonymous (the resident set less its file-backed
// pages, /proc/self/statm): the fresh memory the process has touched, which
// the host backs page by page after a pause.
std::optional<std::uint64_t> anonymous_resident_bytes();

struct MemoryBound {
  std::uint64_t bytes = 0;
  // What sets it: "physical memory", "RLIMIT_AS", "RLIMIT_DATA", "cgroup
  // memory.max", "cgroup memory.limit_in_bytes", or "--max-memory".
  std::string source;
};

// The smallest of the physical memory, the address-space and data limits
// (RLIMIT_AS, RLIMIT_DATA) and the cgroup's limit (v2 memory.max, v1
// memory.limit_in_bytes), each the system gives; nullopt when it gives none.
std::optional<MemoryBound> machine_memory_bound();

// The default limit on the resident set: the machine's bound less a margin
// of an eighth, for what the process holds outside its own count (the
// program, its libraries, its threads' stacks, the allocator's reserve).
// Without a bound, 16 GiB.
MemoryBound default_max_memory();

}  // namespace tfsem
