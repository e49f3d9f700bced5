#include "sim/core/host_memory.h"

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>

namespace socsim {

std::uint64_t resident_bytes() {
  std::ifstream statm("/proc/self/statm");
  std::uint64_t size = 0, resident = 0;
  if (!(statm >> size >> resident)) return 0;
  const long page = sysconf(_SC_PAGESIZE);
  return page > 0 ? resident * static_cast<std::uint64_t>(page) : 0;
}

std::uint64_t physical_memory_bytes() {
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  return pages > 0 && page > 0 ? static_cast<std::uint64_t>(pages) * static_cast<std::uint64_t>(page) : 0;
}

namespace {

thread_local std::uint64_t limit_bytes = 0;

// A limit file's value: a byte count, or "max" / a huge number (v1 writes 2^63 rounded to a
// page) for none.
std::uint64_t read_limit(const std::filesystem::path& file) {
  std::ifstream in(file);
  std::string text;
  if (!(in >> text) || text == "max") return 0;
  std::uint64_t v = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return 0;
    if (v > (std::uint64_t{1} << 60)) return 0;  // beyond any machine: no limit
    v = v * 10 + static_cast<std::uint64_t>(c - '0');
  }
  return v >= (std::uint64_t{1} << 60) ? 0 : v;
}

// The least non-zero limit in `group` (a path such as "/a/b" under `root`) and its ancestors.
std::uint64_t least_limit(const std::filesystem::path& root, const std::string& group, const char* file) {
  std::uint64_t least = 0;
  std::filesystem::path dir = std::filesystem::path(group).relative_path();
  while (true) {
    const std::uint64_t v = read_limit(root / dir / file);
    if (v > 0 && (least == 0 || v < least)) least = v;
    if (dir.empty()) break;
    dir = dir.parent_path();
  }
  return least;
}

}  // namespace

std::uint64_t cgroup_memory_limit(const std::string& proc_self_cgroup, const std::string& cgroup_root) {
  const std::filesystem::path root(cgroup_root);
  std::uint64_t least = 0;
  const auto take = [&](std::uint64_t v) {
    if (v > 0 && (least == 0 || v < least)) least = v;
  };
  std::size_t pos = 0;
  while (pos < proc_self_cgroup.size()) {
    std::size_t nl = proc_self_cgroup.find('\n', pos);
    if (nl == std::string::npos) nl = proc_self_cgroup.size();
    const std::string line = proc_self_cgroup.substr(pos, nl - pos);
    pos = nl + 1;
    // "hierarchy-id:controllers:path"
    const std::size_t a = line.find(':'), b = a == std::string::npos ? a : line.find(':', a + 1);
    if (b == std::string::npos) continue;
    const std::string controllers = line.substr(a + 1, b - a - 1), path = line.substr(b + 1);
    if (line.compare(0, a, "0") == 0 && controllers.empty()) {
      take(least_limit(root, path, "memory.max"));  // v2 (unified)
      take(least_limit(root / "unified", path, "memory.max"));  // v2 beside v1 (hybrid)
    }
    std::size_t c = 0;
    while (c <= controllers.size()) {
      std::size_t comma = controllers.find(',', c);
      if (comma == std::string::npos) comma = controllers.size();
      if (controllers.substr(c, comma - c) == "memory") take(least_limit(root / "memory", path, "memory.limit_in_bytes"));
      c = comma + 1;
    }
  }
  return least;
}

std::uint64_t usable_memory_bytes() {
  std::ifstream in("/proc/self/cgroup");
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::uint64_t group = cgroup_memory_limit(text, "/sys/fs/cgroup");
  const std::uint64_t machine = physical_memory_bytes();
  std::uint64_t usable = group == 0 ? machine : machine == 0 ? group : std::min(group, machine);
  // The process's own limits (ulimit -v, -d): beyond them an allocation fails outright, so the
  // default limit must stop a run before they are reached.
  for (const int resource : {RLIMIT_AS, RLIMIT_DATA}) {
    struct rlimit rl {};
    if (::getrlimit(resource, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur > 0) {
      const auto cap = static_cast<std::uint64_t>(rl.rlim_cur);
      usable = usable == 0 ? cap : std::min(usable, cap);
    }
  }
  return usable;
}

std::uint64_t thread_host_memory_limit() { return limit_bytes; }
ScopedHostMemoryLimit::ScopedHostMemoryLimit(std::uint64_t bytes) : previous_(limit_bytes) { limit_bytes = bytes; }
ScopedHostMemoryLimit::~ScopedHostMemoryLimit() { limit_bytes = previous_; }

namespace {
thread_local void (*interrupt_poll)() = nullptr;
}  // namespace

ScopedInterruptPoll::ScopedInterruptPoll(void (*poll)()) : previous_(interrupt_poll) { interrupt_poll = poll; }
ScopedInterruptPoll::~ScopedInterruptPoll() { interrupt_poll = previous_; }
bool host_checks_active() { return limit_bytes > 0 || interrupt_poll != nullptr; }

void check_host_memory() {
  if (interrupt_poll != nullptr) interrupt_poll();
  if (limit_bytes == 0) return;
  const std::uint64_t resident = resident_bytes();
  if (resident > limit_bytes) throw HostMemoryExceeded(resident, limit_bytes);
}

void check_host_memory_for(std::uint64_t bytes) {
  if (interrupt_poll != nullptr) interrupt_poll();
  if (limit_bytes == 0) return;
  const std::uint64_t resident = resident_bytes();
  const std::uint64_t most = std::numeric_limits<std::uint64_t>::max();
  const std::uint64_t after = bytes > most - resident ? most : resident + bytes;
  if (after > limit_bytes) throw HostMemoryExceeded(after, limit_bytes, bytes);
}

namespace {
thread_local std::uint64_t growth_since_check = 0;

// MiB rounded up: a size just past the limit reads as more than it ("201 MiB ... the limit of 200").
std::string mib_up(std::uint64_t bytes) { return std::to_string(bytes / (1u << 20) + (bytes % (1u << 20) != 0 ? 1 : 0)); }
}  // namespace

void note_host_growth(std::uint64_t bytes) {
  if (!host_checks_active()) return;
  growth_since_check += bytes;
  if (growth_since_check < kGrowthCheckBytes) return;
  growth_since_check = 0;
  check_host_memory();
}

HostMemoryExceeded::HostMemoryExceeded(std::uint64_t resident, std::uint64_t limit, std::uint64_t allocating)
    : std::runtime_error(allocating == 0 ? "the simulation holds " + mib_up(resident) + " MiB of host memory, more than the limit of " +
                                               std::to_string(limit >> 20) + " MiB"
                                         : "the simulation would hold " + mib_up(resident) + " MiB of host memory with the next " +
                                               mib_up(allocating) + " MiB it allocates, more than the limit of " +
                                               std::to_string(limit >> 20) + " MiB"),
      resident_(resident),
      limit_(limit) {}

}  // namespace socsim
