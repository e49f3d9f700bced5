#include "sim/core/host_allocator.h"

#if __has_include(<malloc.h>)
#include <malloc.h>
#endif

namespace socsim {

void keep_freed_memory_for_reuse() {
#if defined(M_MMAP_THRESHOLD) && defined(M_TRIM_THRESHOLD)  // glibc's mallopt
  // Setting either fixes both thresholds (glibc stops adjusting them), so both are set.
  mallopt(M_MMAP_THRESHOLD, 32 << 20);
  mallopt(M_TRIM_THRESHOLD, 64 << 20);
#endif
}

}  // namespace socsim
