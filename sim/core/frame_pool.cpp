#include "sim/core/frame_pool.h"

#include <array>
#include <new>

#include "sim/core/sanitizer_allocator.h"

namespace socsim::detail {

namespace {

constexpr bool kPooled = !kSanitizerAllocator;

constexpr std::size_t kGranule = 64;     // class c holds blocks of (c + 1) x 64 bytes
constexpr std::size_t kClasses = 32;     // up to 2 KiB; larger frames are rare
// Kept for reuse at most this much per thread (what a run's peak of live frames needs is far
// less); past it, freed frames go back to the global allocator.
constexpr std::size_t kMaxRetainedBytes = std::size_t{32} << 20;

struct FreeBlock {
  FreeBlock* next;
};

struct FramePool {
  std::array<FreeBlock*, kClasses> head{};
  std::size_t retained_bytes = 0;
  ~FramePool();
};

// Trivially destructible, so it stays readable after the pool's destructor ran (a frame freed by
// a thread_local or static destructor later in teardown goes straight to the global allocator).
thread_local bool pool_gone = false;
thread_local FramePool pool;

FramePool::~FramePool() {
  for (FreeBlock*& h : head) {
    while (h) {
      FreeBlock* next = h->next;
      ::operator delete(static_cast<void*>(h));
      h = next;
    }
  }
  pool_gone = true;
}

std::size_t class_of(std::size_t bytes) { return (bytes + kGranule - 1) / kGranule - 1; }

}  // namespace

void* allocate_frame(std::size_t bytes) {
  if (!kPooled || bytes == 0 || bytes > kClasses * kGranule) return ::operator new(bytes);
  // Always the whole class, even past the pool's end: free_frame may list the block by its class.
  const std::size_t c = class_of(bytes);
  if (pool_gone) return ::operator new((c + 1) * kGranule);
  if (FreeBlock* b = pool.head[c]) {
    pool.head[c] = b->next;
    pool.retained_bytes -= (c + 1) * kGranule;
    return b;
  }
  return ::operator new((c + 1) * kGranule);
}

void free_frame(void* p, std::size_t bytes) noexcept {
  if (!p) return;
  if (!kPooled || bytes == 0 || bytes > kClasses * kGranule || pool_gone) {
    ::operator delete(p);
    return;
  }
  const std::size_t c = class_of(bytes);
  if (pool.retained_bytes + (c + 1) * kGranule > kMaxRetainedBytes) {
    ::operator delete(p);
    return;
  }
  auto* b = static_cast<FreeBlock*>(p);
  b->next = pool.head[c];
  pool.head[c] = b;
  pool.retained_bytes += (c + 1) * kGranule;
}

}  // namespace socsim::detail
