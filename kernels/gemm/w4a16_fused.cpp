#include "kernels/gemm/w4a16_fused.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "kernels/gemm/bulk_convert.h"
#include "kernels/gemm/gemm_w4a16.h"
#include "kernels/gemm/packed_gemm.h"

// Written with AVX2/F16C intrinsics under a target attribute, as bulk_convert.cpp is: the library
// stays baseline x86-64 and gemm_w4a16 asks w4a16_fused_available() before it comes here.
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#include <immintrin.h>
#define SOCSIM_HAVE_FUSED_W4A16 1
#define SOCSIM_FUSED_TARGET __attribute__((target("avx2,fma,f16c")))
#endif

namespace socsim::kernels {

#ifdef SOCSIM_HAVE_FUSED_W4A16

namespace {

// Output columns per group: 16 lanes, two 8-float vectors, so that a 16 x 16 byte transpose turns
// the 16 columns' blocks into one vector per depth index.
constexpr int kLanes = 16;
static_assert(kLanes == kGemmNr, "column groups are the packed path's micro-panels");

constexpr int kRoundNearest = _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC;

template <int kBits>
SOCSIM_FUSED_TARGET inline __m128i unpack_lo(__m128i a, __m128i b) {
  if constexpr (kBits == 8) {
    return _mm_unpacklo_epi8(a, b);
  } else if constexpr (kBits == 16) {
    return _mm_unpacklo_epi16(a, b);
  } else if constexpr (kBits == 32) {
    return _mm_unpacklo_epi32(a, b);
  } else {
    static_assert(kBits == 64);
    return _mm_unpacklo_epi64(a, b);
  }
}

template <int kBits>
SOCSIM_FUSED_TARGET inline __m128i unpack_hi(__m128i a, __m128i b) {
  if constexpr (kBits == 8) {
    return _mm_unpackhi_epi8(a, b);
  } else if constexpr (kBits == 16) {
    return _mm_unpackhi_epi16(a, b);
  } else if constexpr (kBits == 32) {
    return _mm_unpackhi_epi32(a, b);
  } else {
    static_assert(kBits == 64);
    return _mm_unpackhi_epi64(a, b);
  }
}

// One perfect-shuffle stage: out[i] and out[i + 8] interleave in[2i] and in[2i + 1] in units of kBits.
template <int kBits>
SOCSIM_FUSED_TARGET inline void shuffle_stage(const __m128i in[16], __m128i out[16]) {
#pragma GCC unroll 8
  for (int i = 0; i < 8; ++i) {
    out[i] = unpack_lo<kBits>(in[2 * i], in[2 * i + 1]);
    out[i + 8] = unpack_hi<kBits>(in[2 * i], in[2 * i + 1]);
  }
}

// out[x] = byte x of every row: out[x] byte c = in[c] byte x. Four perfect-shuffle stages leave
// byte x of the rows in vector bitreverse4(x) (each stage moves one bit of x into the vector index).
SOCSIM_FUSED_TARGET inline void transpose_16x16(const __m128i in[16], __m128i out[16]) {
  static constexpr int kBitReverse4[16] = {0, 8, 4, 12, 2, 10, 6, 14, 1, 9, 5, 13, 3, 11, 7, 15};
  __m128i s1[16], s2[16];
  shuffle_stage<8>(in, s1);
  shuffle_stage<16>(s1, s2);
  shuffle_stage<32>(s2, s1);
  shuffle_stage<64>(s1, s2);
#pragma GCC unroll 16
  for (int x = 0; x < 16; ++x) out[x] = s2[kBitReverse4[x]];
}

// The 16 columns' payload bytes at byte offset `at` of their blocks, as 16 rows.
SOCSIM_FUSED_TARGET inline void load_rows(const std::uint8_t* const blocks[kLanes], int at, __m128i rows[16]) {
#pragma GCC unroll 16
  for (int c = 0; c < kLanes; ++c) rows[c] = _mm_loadu_si128(reinterpret_cast<const __m128i*>(blocks[c] + at));
}

// values[kk] byte c = the integer value (q - 8) at depth kk of column c's Q4_0 block: byte x of a
// block holds depth x in its low nibble and depth x + 16 in its high nibble.
SOCSIM_FUSED_TARGET inline void decode_q4(const std::uint8_t* const blocks[kLanes], __m128i values[32]) {
  __m128i rows[16], bytes[16];
  load_rows(blocks, 2, rows);
  transpose_16x16(rows, bytes);
  const __m128i low4 = _mm_set1_epi8(0x0F), eight = _mm_set1_epi8(8);
#pragma GCC unroll 16
  for (int x = 0; x < 16; ++x) {
    values[x] = _mm_sub_epi8(_mm_and_si128(bytes[x], low4), eight);
    values[x + 16] = _mm_sub_epi8(_mm_and_si128(_mm_srli_epi16(bytes[x], 4), low4), eight);
  }
}

// values[kk] byte c = the int8 value at depth kk of column c's Q8_0 block.
SOCSIM_FUSED_TARGET inline void decode_q8(const std::uint8_t* const blocks[kLanes], __m128i values[32]) {
  __m128i rows[16];
  load_rows(blocks, 2, rows);
  transpose_16x16(rows, values);
  load_rows(blocks, 2 + 16, rows);
  transpose_16x16(rows, values + 16);
}

// The 16 columns' block scales as floats (lanes 0-7 in lo, 8-15 in hi).
SOCSIM_FUSED_TARGET inline void load_scales(const std::uint8_t* const blocks[kLanes], __m256& lo, __m256& hi) {
  alignas(16) std::uint16_t bits[kLanes];
  for (int c = 0; c < kLanes; ++c) bits[c] = static_cast<std::uint16_t>(blocks[c][0] | blocks[c][1] << 8);
  lo = _mm256_cvtph_ps(_mm_load_si128(reinterpret_cast<const __m128i*>(bits)));
  hi = _mm256_cvtph_ps(_mm_load_si128(reinterpret_cast<const __m128i*>(bits + 8)));
}

// half(d * value) for 8 columns (the int8 values in the low 8 bytes of `values`): the product is
// exact in float and is rounded once to FP16 by the instruction round_through_half uses, so each
// weight equals its entry in pack_q4_panel's table or pack_q8_panel's column.
SOCSIM_FUSED_TARGET inline __m256 dequantize8(__m128i values, __m256 d) {
  const __m256 exact = _mm256_mul_ps(d, _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(values)));
  return _mm256_cvtph_ps(_mm256_cvtps_ph(exact, kRoundNearest));
}

struct FusedJob {
  const float* a;  // A widened to float, row-major m x k
  const BlockQuantized& w;
  half* c;  // row-major m x n
  GemmDims d;
};

// Rows [i0, i0+R) x columns [j0, j0+count) of C. Each lane is one output column; its sum runs over
// k ascending in one FP32 accumulator per row, as the micro-kernel's lanes do.
template <int R>
SOCSIM_FUSED_TARGET void fused_tile(const FusedJob& job, std::int64_t i0, std::int64_t j0, int count) {
  __m256 acc[R][2];
  for (int r = 0; r < R; ++r) acc[r][0] = acc[r][1] = _mm256_setzero_ps();
  // Lanes past `count` repeat the last real column: same memory, results dropped.
  const std::uint8_t* rows[kLanes];
  for (int c = 0; c < kLanes; ++c) rows[c] = job.w.block(j0 + std::min(c, count - 1), 0);
  const std::int64_t stride = block_bytes(job.w.format), nb = job.w.blocks_per_row();
  const bool q4 = job.w.format == BlockFormat::kQ4_0;
  for (std::int64_t b = 0; b < nb; ++b) {
    const std::uint8_t* blocks[kLanes];
    for (int c = 0; c < kLanes; ++c) blocks[c] = rows[c] + b * stride;
    __m256 d_lo, d_hi;
    load_scales(blocks, d_lo, d_hi);
    __m128i values[32];
    if (q4) {
      decode_q4(blocks, values);
    } else {
      decode_q8(blocks, values);
    }
    const float* a = job.a + i0 * job.d.k + b * kQuantBlock;
    const int depth = static_cast<int>(std::min<std::int64_t>(kQuantBlock, job.d.k - b * kQuantBlock));
    for (int kk = 0; kk < depth; ++kk) {
      const __m256 w_lo = dequantize8(values[kk], d_lo);
      const __m256 w_hi = dequantize8(_mm_unpackhi_epi64(values[kk], values[kk]), d_hi);
#pragma GCC unroll 4
      for (int r = 0; r < R; ++r) {
        const __m256 ar = _mm256_broadcast_ss(a + r * job.d.k + kk);
        acc[r][0] = _mm256_fmadd_ps(w_lo, ar, acc[r][0]);
        acc[r][1] = _mm256_fmadd_ps(w_hi, ar, acc[r][1]);
      }
    }
  }
  // One rounding to FP16 per output, as HalfOutputSink does after the last depth block.
  for (int r = 0; r < R; ++r) {
    alignas(16) half out[kLanes];
    _mm_store_si128(reinterpret_cast<__m128i*>(out), _mm256_cvtps_ph(acc[r][0], kRoundNearest));
    _mm_store_si128(reinterpret_cast<__m128i*>(out + 8), _mm256_cvtps_ph(acc[r][1], kRoundNearest));
    std::memcpy(job.c + (i0 + r) * job.d.n + j0, out, static_cast<std::size_t>(count) * sizeof(half));
  }
}

// Column groups of the rectangle outermost (a group's weights stay in cache across row passes),
// then passes of up to kW4A16FusedPassRows rows.
void fused_rect(const FusedJob& job, const packed_gemm_detail::Rect& rect) {
  static_assert(kW4A16FusedPassRows == 4, "fused_tile is instantiated for 1..4 rows");
  for (std::int64_t j = rect.j0; j < rect.j1; j += kLanes) {
    const int count = static_cast<int>(std::min<std::int64_t>(kLanes, rect.j1 - j));
    for (std::int64_t i = rect.i0; i < rect.i1; i += kW4A16FusedPassRows) {
      switch (std::min<std::int64_t>(kW4A16FusedPassRows, rect.i1 - i)) {
        case 1: fused_tile<1>(job, i, j, count); break;
        case 2: fused_tile<2>(job, i, j, count); break;
        case 3: fused_tile<3>(job, i, j, count); break;
        default: fused_tile<4>(job, i, j, count); break;
      }
    }
  }
}

}  // namespace

bool w4a16_fused_available() {
  return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") && __builtin_cpu_supports("f16c");
}

Tensor gemm_w4a16_fused(const Tensor& a, const BlockQuantized& w, unsigned threads) {
  if (!w4a16_fused_available()) throw std::logic_error("the fused W4A16 path needs AVX2, FMA and F16C");
  require_w4a16_operands(a, w);
  const GemmDims d{a.dim(0), a.dim(1), w.rows};
  Tensor c = Tensor::matrix(d.m, d.n, ElemType::kF16);
  if (d.m <= 0 || d.n <= 0 || d.k <= 0) return c;  // what run_packed_gemm leaves: zeros
  // A is widened once (m x k halves; small next to the weights) so the inner loop broadcasts floats.
  std::vector<float> af(static_cast<std::size_t>(d.m * d.k));
  widen(a.data<half>().data(), af.data(), af.size());
  const FusedJob job{af.data(), w, c.data<half>().data(), d};
  // The packed engine's split: one rectangle per thread, column strips on micro-panel boundaries.
  const auto rects = packed_gemm_detail::split_output(d, threads);
  parallel_for(rects.size(), [&](std::size_t t) { fused_rect(job, rects[t]); });
  return c;
}

#else

bool w4a16_fused_available() { return false; }

Tensor gemm_w4a16_fused(const Tensor&, const BlockQuantized&, unsigned) {
  throw std::logic_error("the fused W4A16 path is built only for x86-64 with GCC");
}

#endif

}  // namespace socsim::kernels
