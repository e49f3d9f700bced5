#pragma once
// How the C library's allocator keeps memory the simulator frees (called once, from main).
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
namespace socsim {

void keep_freed_memory_for_reuse();

}  // namespace socsim
