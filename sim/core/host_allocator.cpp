#include "sim/core/host_allocator.h"

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <string>

#if __has_include(<malloc.h>)
#include <malloc.h>
#endif
#if __has_include(<sys/mman.h>)
#include <sys/mman.h>
#endif

#include "sim/core/sanitizer_allocator.h"

namespace socsim {

namespace {

// No address-space or data-segment limit (ulimit -v, -d) that the heap's reserve would eat into.
bool no_tight_process_limit() {
  for (const int resource : {RLIMIT_AS, RLIMIT_DATA}) {
    struct rlimit rl {};
    if (::getrlimit(resource, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur < (std::uint64_t{4} << 30)) return false;
  }
  return true;
}

}  // namespace

bool huge_pages_on_request(const std::string& thp_enabled_path) {
  std::ifstream in(thp_enabled_path);
  std::string text;
  std::getline(in, text);
  return text.find("[always]") != std::string::npos || text.find("[madvise]") != std::string::npos;
}

bool heap_reserve_applies() {
#if defined(M_MMAP_THRESHOLD) && defined(M_TRIM_THRESHOLD) && defined(MADV_HUGEPAGE)
  // 64-bit glibc: a 32-bit one caps the mmap threshold at 512 KiB, so the blocks would be mappings
  // of their own, unmapped when freed.
  return sizeof(void*) == 8 && !kSanitizerAllocator && no_tight_process_limit() &&
         huge_pages_on_request("/sys/kernel/mm/transparent_hugepage/enabled");
#else
  return false;
#endif
}

bool keep_freed_memory_for_reuse() {
  bool marked = false;
#if defined(M_MMAP_THRESHOLD) && defined(M_TRIM_THRESHOLD)  // glibc's mallopt
  // Setting either fixes both thresholds (glibc stops adjusting them), so both are set.
  const bool thresholds_set = mallopt(M_MMAP_THRESHOLD, static_cast<int>(kHeapBlockLimit)) == 1 &&
                             mallopt(M_TRIM_THRESHOLD, static_cast<int>(kFreeHeapKept)) == 1;
#if defined(MADV_HUGEPAGE)
  if (thresholds_set && heap_reserve_applies()) {
    // The heap's first kHugePageReserve bytes, grown now and marked for transparent huge pages:
    // blocks below the mmap threshold come from the heap, contiguously, and the free top stays
    // (below the trim threshold), so the run's allocations land in the marked range.
    std::array<void*, kHugePageReserve / kHeapReserveBlock> blocks{};
    for (void*& b : blocks) b = std::malloc(kHeapReserveBlock);
    // Advice over each run of adjacent blocks (the heap's chunk headers lie between them), in
    // whole huge pages; where the kernel declines, pages stay 4 KiB.
    constexpr std::uintptr_t kHuge = std::uintptr_t{2} << 20;  // x86-64's huge page (and arm64's, with 4 KiB pages)
    std::array<std::uintptr_t, blocks.size()> at{};
    std::transform(blocks.begin(), blocks.end(), at.begin(), [](void* b) { return reinterpret_cast<std::uintptr_t>(b); });
    std::sort(at.begin(), at.end());
    std::uintptr_t advised_end = 0;
    const auto advise = [kHuge, &marked, &advised_end](std::uintptr_t lo, std::uintptr_t hi) {
      const std::uintptr_t first = (lo + kHuge - 1) / kHuge * kHuge, last = hi / kHuge * kHuge;
      if (last > first && ::madvise(reinterpret_cast<void*>(first), last - first, MADV_HUGEPAGE) == 0) {
        marked = true;
        advised_end = std::max(advised_end, last);
      }
    };
    std::uintptr_t lo = 0, hi = 0;
    for (const std::uintptr_t a : at) {
      if (a == 0) continue;  // that block was not given
      if (hi != 0 && a >= hi && a - hi < 4096) {
        hi = a + kHeapReserveBlock;
        continue;
      }
      if (hi != 0) advise(lo, hi);
      lo = a, hi = a + kHeapReserveBlock;
    }
    if (hi != 0) advise(lo, hi);
    // Freed in reverse: each joins the heap's free top, which stays below the trim threshold.
    std::for_each(blocks.rbegin(), blocks.rend(), [](void* b) { std::free(b); });
    // Still the heap's (not trimmed away: the marked range would be gone with it).
    if (marked && reinterpret_cast<std::uintptr_t>(::sbrk(0)) < advised_end) marked = false;
  }
#endif
#endif
  return marked;
}

}  // namespace socsim
