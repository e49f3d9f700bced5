#include "sim/core/host_memory.h"

#include <unistd.h>

#include <fstream>

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
}  // namespace

std::uint64_t thread_host_memory_limit() { return limit_bytes; }
ScopedHostMemoryLimit::ScopedHostMemoryLimit(std::uint64_t bytes) : previous_(limit_bytes) { limit_bytes = bytes; }
ScopedHostMemoryLimit::~ScopedHostMemoryLimit() { limit_bytes = previous_; }

void check_host_memory() {
  if (limit_bytes == 0) return;
  const std::uint64_t resident = resident_bytes();
  if (resident > limit_bytes) throw HostMemoryExceeded(resident, limit_bytes);
}

HostMemoryExceeded::HostMemoryExceeded(std::uint64_t resident, std::uint64_t limit)
    : std::runtime_error("the simulation holds " + std::to_string(resident >> 20) + " MiB of host memory, more than the limit of " +
                         std::to_string(limit >> 20) + " MiB"),
      resident_(resident),
      limit_(limit) {}

}  // namespace socsim
