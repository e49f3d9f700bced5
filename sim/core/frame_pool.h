#pragma once
// Recycled memory for coroutine frames. A timed run creates and destroys millions of short-lived
// Task frames (one per DMA transfer, HVX stream, CPU kernel, when_all child), and malloc/free of
// them was a quarter of a run's instructions (callgrind, llama-3-8b on llm-npu). Frames come in a
// few sizes, so freed ones go onto a per-thread free list by size class and the next frame of
// that class takes one back: no lock, no search.
//
// A simulation runs on one thread; a frame freed on another thread (never done today) would join
// that thread's lists, which is still correct. Blocks above the largest class, and every block in
// sanitizer builds (so AddressSanitizer still sees use-after-free of frames), go to the global
// allocator. Host memory stays bounded: a thread keeps at most 32 MiB of free frames, the rest
// are freed, and a thread's lists are freed when it exits.
#include <cstddef>

namespace socsim::detail {

void* allocate_frame(std::size_t bytes);
void free_frame(void* p, std::size_t bytes) noexcept;

}  // namespace socsim::detail
