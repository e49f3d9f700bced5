#pragma once
// How the C library's allocator keeps memory the simulator frees, and where it gets it (called
// once, from main).
//
// A run builds plans, lowered steps and statistics in vectors that grow by doubling to tens of
// MB and are freed when the request (or a decode window, or a candidate of HeteroLLM's profiler)
// ends. glibc serves blocks above its mmap threshold (128 KiB, raised only as such blocks are
// freed) with fresh mappings and returns the top of the heap to the system once 128 KiB are
// free there, so each growth and each next request faulted its pages in again: 4,000 of the
// 20,000 page faults of a llama-3-8b hetero-tensor run at batch 16, about a tenth of its wall
// time (`/usr/bin/time -f %R`). Blocks below 32 MiB now come from the heap, and up to 64 MiB of
// free heap stays with the process for the next allocation. That memory is bounded and reused;
// the host-memory guard (host_memory.h) counts it, as the resident set it is.
//
// Then each 4 KiB page the run touched first still cost a fault: 4,500 in a llama-3-8b shadowattn
// run at batch 16, a fifth of its 160 ms of CPU on a virtual machine, where a fault is dear. The
// heap's first 62 MiB (the peak of most timing runs) are grown at once and marked for transparent
// huge pages (madvise; glibc.malloc.hugetlb=1 does this for every growth, but only as a tunable of
// the environment): 2 MiB a fault, 4,500 -> about 500 faults and 160 -> 115-130 ms. Not done
// under a sanitizer's allocator, under a process limit below 4 GiB (ulimit -v or -d: the reserve
// would count against it), on a 32-bit or non-glibc build, or where the system gives no huge pages
// on request. The cost: a resident set rounded up to huge pages, 1-9 MB more at the peak (bench's
// peak_MB); and where the kernel compacts memory on a huge page's first touch (defrag "madvise",
// the default) a fragmented host may stall that touch, as glibc's own hugetlb=1 would.
#include <cstddef>
#include <string>

namespace socsim {

inline constexpr std::size_t kHeapBlockLimit = std::size_t{32} << 20;    // blocks below it come from the heap
inline constexpr std::size_t kFreeHeapKept = std::size_t{64} << 20;      // free heap top kept up to this
inline constexpr std::size_t kHeapReserveBlock = std::size_t{31} << 20;  // one block of the reserve
inline constexpr std::size_t kHugePageReserve = 2 * kHeapReserveBlock;   // the heap grown and marked at start
static_assert(kHeapReserveBlock < kHeapBlockLimit, "the reserve's blocks must come from the heap");
static_assert(kHugePageReserve < kFreeHeapKept, "the freed reserve must stay with the process");

// Returns whether the heap's reserve was grown and marked for huge pages.
bool keep_freed_memory_for_reuse();
// Whether the reserve is made here: 64-bit glibc's allocator (no sanitizer's), no tight process
// limit, huge pages given on request.
bool heap_reserve_applies();
// Whether the kernel gives huge pages to a region that asks (`thp_enabled_path` holds
// "always [madvise] never" or the like: the bracketed choice is "always" or "madvise").
bool huge_pages_on_request(const std::string& thp_enabled_path);

}  // namespace socsim
