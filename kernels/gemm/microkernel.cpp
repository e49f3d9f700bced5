// The 6x16 FP32 micro-kernel of packed_gemm.h. Written with GCC vector extensions rather than
// intrinsics so the same source is valid everywhere; on x86-64 GCC it is compiled twice
// (target_clones) and the loader picks the x86-64-v3 (AVX2 + FMA) copy on hosts that have it, the
// baseline SSE2 copy elsewhere. The library as a whole stays baseline x86-64.
#include <cstring>

#include "kernels/gemm/packed_gemm.h"

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define SOCSIM_GEMM_CLONES __attribute__((target_clones("arch=x86-64-v3", "default")))
#else
#define SOCSIM_GEMM_CLONES
#endif

namespace socsim::kernels {

namespace {
typedef float v8f __attribute__((vector_size(32)));
static_assert(kGemmNr == 16 && kGemmMr == 6, "the micro-kernel is written for 6 x (2 x 8)");
}  // namespace

// Per k: two B vectors times six broadcast A scalars into 12 accumulators. 12 independent FMA
// chains cover the FMA latency at two per cycle; loads (2 vectors + 6 broadcasts) stay under the
// load ports' rate. memcpy is how unaligned vector loads are spelled portably.
SOCSIM_GEMM_CLONES void gemm_microkernel(std::int64_t kc, const float* a, const float* b, float* acc) {
  v8f c0[kGemmMr], c1[kGemmMr];
#pragma GCC unroll 6
  for (int r = 0; r < kGemmMr; ++r) {
    std::memcpy(&c0[r], acc + r * kGemmNr, sizeof(v8f));
    std::memcpy(&c1[r], acc + r * kGemmNr + 8, sizeof(v8f));
  }
  for (std::int64_t kk = 0; kk < kc; ++kk) {
    v8f b0, b1;
    std::memcpy(&b0, b, sizeof(v8f));
    std::memcpy(&b1, b + 8, sizeof(v8f));
#pragma GCC unroll 6
    for (int r = 0; r < kGemmMr; ++r) {
      const float ar = a[r];
      c0[r] += b0 * ar;
      c1[r] += b1 * ar;
    }
    a += kGemmMr;
    b += kGemmNr;
  }
#pragma GCC unroll 6
  for (int r = 0; r < kGemmMr; ++r) {
    std::memcpy(acc + r * kGemmNr, &c0[r], sizeof(v8f));
    std::memcpy(acc + r * kGemmNr + 8, &c1[r], sizeof(v8f));
  }
}

}  // namespace socsim::kernels
