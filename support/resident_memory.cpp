#include "support/resident_memory.hpp"

#include <sys/resource.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>

namespace tfsem {

namespace {

// A cgroup's limit in a file (memory.max: "max" when there is none), if it sets one.
std::optional<std::uint64_t> limit_in(const std::string& path) {
  std::ifstream in(path);
  std::string text;
  if (!(in >> text) || text == "max") return std::nullopt;
  try {
    return std::stoull(text);
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

// The process's cgroup path for a controller ("" the v2 one), from /proc/self/cgroup.
std::string cgroup_path(const std::string& controller) {
  std::ifstream in("/proc/self/cgroup");
  for (std::string line; std::getline(in, line);) {
    const auto a = line.find(':'), b = line.find(':', a + 1);
    if (a == std::string::npos || b == std::string::npos) continue;
    const auto names = line.substr(a + 1, b - a - 1);
    if (names == controller) return line.substr(b + 1);
  }
  return "/";
}

// /proc/self/statm's resident and file-backed (shared) sets, in bytes.
struct Statm {
  std::uint64_t resident = 0, shared = 0;
};
std::optional<Statm> statm() {
  std::FILE* f = std::fopen("/proc/self/statm", "r");
  if (f == nullptr) return std::nullopt;
  unsigned long long size = 0, resident = 0, shared = 0;  // in pages
  const bool ok = std::fscanf(f, "%llu %llu %llu", &size, &resident, &shared) == 3;
  std::fclose(f);
  const long page = sysconf(_SC_PAGESIZE);
  if (!ok || page <= 0) return std::nullopt;
  const auto bytes = static_cast<std::uint64_t>(page);
  return Statm{resident * bytes, shared * bytes};
}

void take(std::optional<MemoryBound>& best, std::optional<std::uint64_t> bytes, const char* source) {
  if (bytes && *bytes > 0 && (!best || *bytes < best->bytes)) best = MemoryBound{*bytes, source};
}

std::optional<std::uint64_t> resource_limit(int resource) {
  struct rlimit r {};
  if (getrlimit(resource, &r) != 0 || r.rlim_cur == RLIM_INFINITY) return std::nullopt;
  return r.rlim_cur;
}

}  // namespace

std::optional<std::uint64_t> resident_set_bytes() {
  const auto m = statm();
  if (!m) return std::nullopt;
  return m->resident;
}

std::optional<std::uint64_t> anonymous_resident_bytes() {
  const auto m = statm();
  if (!m) return std::nullopt;
  return m->resident - m->shared;
}

std::optional<MemoryBound> machine_memory_bound() {
  std::optional<MemoryBound> best;
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  if (pages > 0 && page > 0) take(best, static_cast<std::uint64_t>(pages) * static_cast<std::uint64_t>(page), "physical memory");
  take(best, resource_limit(RLIMIT_AS), "RLIMIT_AS");
  take(best, resource_limit(RLIMIT_DATA), "RLIMIT_DATA");
  // The cgroup's file, where the cgroup's own directory is mounted (a
  // container's view) or below the hierarchy's root.
  const std::string v2 = "/sys/fs/cgroup", v1 = "/sys/fs/cgroup/memory";
  for (const auto& dir : {v2, v2 + cgroup_path("")}) take(best, limit_in(dir + "/memory.max"), "cgroup memory.max");
  for (const auto& dir : {v1, v1 + cgroup_path("memory")})
    take(best, limit_in(dir + "/memory.limit_in_bytes"), "cgroup memory.limit_in_bytes");
  return best;
}

MemoryBound default_max_memory() {
  const auto bound = machine_memory_bound();
  if (!bound) return {std::uint64_t{16} << 30, "no bound known"};
  return {bound->bytes - bound->bytes / 8, bound->source + ", less an eighth"};
}

}  // namespace tfsem
