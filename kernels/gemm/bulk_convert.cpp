#include "kernels/gemm/bulk_convert.h"

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#include <immintrin.h>
#define SOCSIM_HAVE_F16C_PATH 1
#define SOCSIM_CONVERT_CLONES __attribute__((target_clones("arch=x86-64-v3", "default")))
#else
#define SOCSIM_CONVERT_CLONES
#endif

namespace socsim::kernels {

namespace {

#ifdef SOCSIM_HAVE_F16C_PATH
bool host_has_f16c() { return __builtin_cpu_supports("avx") && __builtin_cpu_supports("f16c"); }

__attribute__((target("avx,f16c"))) void widen_f16c(const half* src, float* dst, std::size_t n) {
  std::size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m128i h = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + i));
    _mm256_storeu_ps(dst + i, _mm256_cvtph_ps(h));
  }
  for (; i < n; ++i) dst[i] = static_cast<float>(src[i]);  // scalar vcvtph2ps under this target
}

__attribute__((target("avx,f16c"))) void narrow_f16c(const float* src, half* dst, std::size_t n) {
  std::size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m128i h = _mm256_cvtps_ph(_mm256_loadu_ps(src + i), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(dst + i), h);
  }
  for (; i < n; ++i) dst[i] = static_cast<half>(src[i]);
}

__attribute__((target("avx,f16c"))) void round_f16c(float* data, std::size_t n) {
  std::size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m128i h = _mm256_cvtps_ph(_mm256_loadu_ps(data + i), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    _mm256_storeu_ps(data + i, _mm256_cvtph_ps(h));
  }
  for (; i < n; ++i) data[i] = static_cast<float>(static_cast<half>(data[i]));
}
#endif

}  // namespace

void widen(const half* src, float* dst, std::size_t n) {
#ifdef SOCSIM_HAVE_F16C_PATH
  if (host_has_f16c()) return widen_f16c(src, dst, n);
#endif
  for (std::size_t i = 0; i < n; ++i) dst[i] = static_cast<float>(src[i]);
}

// int8 -> float auto-vectorizes; the AVX2 clone converts 8 per instruction pair instead of 4.
SOCSIM_CONVERT_CLONES void widen(const std::int8_t* src, float* dst, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) dst[i] = static_cast<float>(src[i]);
}

void narrow(const float* src, half* dst, std::size_t n) {
#ifdef SOCSIM_HAVE_F16C_PATH
  if (host_has_f16c()) return narrow_f16c(src, dst, n);
#endif
  for (std::size_t i = 0; i < n; ++i) dst[i] = static_cast<half>(src[i]);
}

void round_through_half(float* data, std::size_t n) {
#ifdef SOCSIM_HAVE_F16C_PATH
  if (host_has_f16c()) return round_f16c(data, n);
#endif
  for (std::size_t i = 0; i < n; ++i) data[i] = static_cast<float>(static_cast<half>(data[i]));
}

}  // namespace socsim::kernels
