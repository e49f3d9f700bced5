#include "kernels/quant/block_quant.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <stdexcept>
#include <string>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "kernels/gemm/bulk_convert.h"
#include "kernels/gemm/gemm_dims.h"
#include "kernels/gemm/packed_gemm.h"

namespace socsim::kernels {

namespace {

void put_scale(std::uint8_t* block, float d) {
  const std::uint16_t bits = half_bits(static_cast<half>(d));
  block[0] = static_cast<std::uint8_t>(bits & 0xFF);
  block[1] = static_cast<std::uint8_t>(bits >> 8);
}

void quantize_q4_0(const float* x, std::uint8_t* block) {
  float amax = 0, max = 0;
  for (int j = 0; j < kQuantBlock; ++j) {
    if (amax < std::fabs(x[j])) amax = std::fabs(x[j]), max = x[j];
  }
  const float d = max / -8.0f, id = d != 0 ? 1.0f / d : 0.0f;
  put_scale(block, d);
  for (int j = 0; j < kQuantBlock / 2; ++j) {
    const auto lo = std::min(15, static_cast<int>(x[j] * id + 8.5f));
    const auto hi = std::min(15, static_cast<int>(x[j + kQuantBlock / 2] * id + 8.5f));
    block[2 + j] = static_cast<std::uint8_t>(lo | (hi << 4));
  }
}

void quantize_q8_0(const float* x, std::uint8_t* block) {
  float amax = 0;
  for (int j = 0; j < kQuantBlock; ++j) amax = std::max(amax, std::fabs(x[j]));
  const float d = amax / 127.0f, id = d != 0 ? 1.0f / d : 0.0f;
  put_scale(block, d);
  for (int j = 0; j < kQuantBlock; ++j) {
    block[2 + j] = static_cast<std::uint8_t>(static_cast<std::int8_t>(std::round(x[j] * id)));
  }
}

constexpr std::int64_t kTileLanes = 16;
#if defined(__SSE2__)
// The 16 bytes of each of 16 vectors, transposed: out[j] holds byte j of in[0..15], in order.
// Four rounds of interleaving (bytes, then pairs, quads and halves): after round r, each unit of
// 2^r bytes holds 2^r consecutive input vectors' bytes of one column.
void transpose_bytes_16x16(const __m128i (&in)[16], __m128i (&out)[16]) {
  __m128i a[16], b[16];
  // a[h * 8 + p]: 16-bit unit t is column 8h + t of inputs 2p, 2p + 1.
  for (int p = 0; p < 8; ++p) {
    a[p] = _mm_unpacklo_epi8(in[2 * p], in[2 * p + 1]);
    a[8 + p] = _mm_unpackhi_epi8(in[2 * p], in[2 * p + 1]);
  }
  // b[h * 8 + g * 4 + s]: 32-bit unit t is column 8h + 4g + t of inputs 4s .. 4s + 3.
  for (int h = 0; h < 2; ++h) {
    for (int s = 0; s < 4; ++s) {
      b[h * 8 + s] = _mm_unpacklo_epi16(a[h * 8 + 2 * s], a[h * 8 + 2 * s + 1]);
      b[h * 8 + 4 + s] = _mm_unpackhi_epi16(a[h * 8 + 2 * s], a[h * 8 + 2 * s + 1]);
    }
  }
  // a[hg * 4 + e * 2 + u] (hg = 2h + g): 64-bit unit t is column 8h + 4g + 2e + t of inputs 8u .. 8u + 7.
  for (int hg = 0; hg < 4; ++hg) {
    for (int u = 0; u < 2; ++u) {
      a[hg * 4 + u] = _mm_unpacklo_epi32(b[hg * 4 + 2 * u], b[hg * 4 + 2 * u + 1]);
      a[hg * 4 + 2 + u] = _mm_unpackhi_epi32(b[hg * 4 + 2 * u], b[hg * 4 + 2 * u + 1]);
    }
  }
  // Column 8h + 4g + 2e + t of inputs 0 .. 15.
  for (int hg = 0; hg < 4; ++hg) {
    for (int e = 0; e < 2; ++e) {
      out[hg * 4 + e * 2] = _mm_unpacklo_epi64(a[hg * 4 + e * 2], a[hg * 4 + e * 2 + 1]);
      out[hg * 4 + e * 2 + 1] = _mm_unpackhi_epi64(a[hg * 4 + e * 2], a[hg * 4 + e * 2 + 1]);
    }
  }
}
#endif

// Q4_0 blocks of the kTileLanes columns of a tile at once (column j: tile[0..31][j], zeros past a
// short block), each column's bytes exactly quantize_q4_0's: the same comparisons, divisions and
// conversions, written lane by lane so the compiler runs them across the columns in vectors.
void quantize_q4_0_lanes(const float (&tile)[kQuantBlock][kTileLanes], std::uint8_t* const (&blocks)[kTileLanes]) {
  float max[kTileLanes], id[kTileLanes];
#if defined(__SSE2__)
  // SSE2 (every x86-64): the scalar code's operations lane for lane. fabs clears the sign bit; a
  // strict less-than is false for NaN, as `<` is, and max_ps(a, amax) is `amax < a ? a : amax`
  // (it returns its second operand when either is NaN); mul then add, never fused (no FMA in
  // SSE2, and the scalar x * id + 8.5f cannot be contracted either: GCC contracts in C++
  // whatever the -std, but this file is built for baseline x86-64, which has no FMA; keep it out
  // of target_clones); truncation as static_cast<int>, including its 0x80000000 for values out of
  // range. The four groups of lanes are four independent chains of compare-and-select, stepped
  // together row by row (run one group after another, as this loop did before, each row waited for
  // the row before: the function's share of a functional run fell from 4.3% to 2.7% of samples).
  const __m128 sign = _mm_set1_ps(-0.0f);
  __m128 amax[4], mx[4];
  for (int q = 0; q < 4; ++q) amax[q] = mx[q] = _mm_setzero_ps();
  for (int i = 0; i < kQuantBlock; ++i) {
    for (int q = 0; q < 4; ++q) {
      const __m128 x = _mm_loadu_ps(&tile[i][4 * q]);
      const __m128 a = _mm_andnot_ps(sign, x);
      const __m128 above = _mm_cmplt_ps(amax[q], a);
      amax[q] = _mm_max_ps(a, amax[q]);
      mx[q] = _mm_or_ps(_mm_and_ps(above, x), _mm_andnot_ps(above, mx[q]));
    }
  }
  for (int q = 0; q < 4; ++q) _mm_storeu_ps(max + 4 * q, mx[q]);
  static_assert(kTileLanes == 16, "four groups of four lanes, bytes transposed 16 x 16");
#else
  float amax[kTileLanes] = {};
  std::fill(max, max + kTileLanes, 0.0f);
  for (int i = 0; i < kQuantBlock; ++i) {
    for (int j = 0; j < kTileLanes; ++j) {
      const float a = std::fabs(tile[i][j]);
      const bool above = amax[j] < a;
      amax[j] = above ? a : amax[j];
      max[j] = above ? tile[i][j] : max[j];
    }
  }
#endif
  float d[kTileLanes];
  half dh[kTileLanes];
  for (int j = 0; j < kTileLanes; ++j) {
    d[j] = max[j] / -8.0f;
    id[j] = d[j] != 0 ? 1.0f / d[j] : 0.0f;
  }
  narrow(d, dh, kTileLanes);  // F16C where the host has it (a libgcc call per scale otherwise), as put_scale rounds
  for (int j = 0; j < kTileLanes; ++j) {
    const std::uint16_t bits = half_bits(dh[j]);
    blocks[j][0] = static_cast<std::uint8_t>(bits & 0xFF);
    blocks[j][1] = static_cast<std::uint8_t>(bits >> 8);
  }
#if defined(__SSE2__)
  // Byte i of every lane's block at once: the low byte of lo | hi << 4, as the scalar cast keeps
  // (both in [0, 15], or 0x80000000 out of range, whose low byte is 0); masked to a byte, the
  // saturating packs change nothing. Then the 16 x 16 bytes transposed: one store per block.
  const __m128 half8 = _mm_set1_ps(8.5f);
  const __m128i fifteen = _mm_set1_epi32(15), byte = _mm_set1_epi32(0xFF);
  __m128 scale[4];
  for (int q = 0; q < 4; ++q) scale[q] = _mm_loadu_ps(id + 4 * q);
  const auto quantize = [&](const float* x, int q) {
    const __m128i v = _mm_cvttps_epi32(_mm_add_ps(_mm_mul_ps(_mm_loadu_ps(x), scale[q]), half8));
    const __m128i over = _mm_cmpgt_epi32(v, fifteen);  // std::min(15, v)
    return _mm_or_si128(_mm_and_si128(over, fifteen), _mm_andnot_si128(over, v));
  };
  __m128i rows[kQuantBlock / 2], columns[kTileLanes];
  for (int i = 0; i < kQuantBlock / 2; ++i) {
    __m128i packed[4];
    for (int q = 0; q < 4; ++q) {
      const __m128i lo = quantize(&tile[i][4 * q], q), hi = quantize(&tile[i + kQuantBlock / 2][4 * q], q);
      packed[q] = _mm_and_si128(_mm_or_si128(lo, _mm_slli_epi32(hi, 4)), byte);
    }
    rows[i] = _mm_packus_epi16(_mm_packs_epi32(packed[0], packed[1]), _mm_packs_epi32(packed[2], packed[3]));
  }
  transpose_bytes_16x16(rows, columns);
  for (int j = 0; j < kTileLanes; ++j) _mm_storeu_si128(reinterpret_cast<__m128i*>(blocks[j] + 2), columns[j]);
#else
  std::int32_t lo[kQuantBlock / 2][kTileLanes], hi[kQuantBlock / 2][kTileLanes];
  for (int i = 0; i < kQuantBlock / 2; ++i) {
    for (int j = 0; j < kTileLanes; ++j) {
      lo[i][j] = std::min(15, static_cast<int>(tile[i][j] * id[j] + 8.5f));
      hi[i][j] = std::min(15, static_cast<int>(tile[i + kQuantBlock / 2][j] * id[j] + 8.5f));
    }
  }
  for (int j = 0; j < kTileLanes; ++j) {
    for (int i = 0; i < kQuantBlock / 2; ++i) blocks[j][2 + i] = static_cast<std::uint8_t>(lo[i][j] | (hi[i][j] << 4));
  }
#endif
}

// Element (r, c) of the dequantized matrix for each c of row r, through `emit(c, d, value)`.
template <class Emit>
void for_each_value(const BlockQuantized& w, Emit emit) {
  std::int8_t v[kQuantBlock];
  for (std::int64_t r = 0; r < w.rows; ++r) {
    for (std::int64_t b = 0; b < w.blocks_per_row(); ++b) {
      const std::uint8_t* blk = w.block(r, b);
      const float d = static_cast<float>(block_scale(blk));
      block_values(w.format, blk, v);
      const std::int64_t c0 = b * kQuantBlock, count = std::min(kQuantBlock, w.cols - c0);
      for (std::int64_t j = 0; j < count; ++j) emit(r * w.cols + c0 + j, d, v[j]);
    }
  }
}

}  // namespace

const char* block_format_name(BlockFormat f) { return f == BlockFormat::kQ4_0 ? "q4_0" : "q8_0"; }

void block_values(BlockFormat format, const std::uint8_t* block, std::int8_t* values) {
  if (format == BlockFormat::kQ8_0) {
    std::memcpy(values, block + 2, kQuantBlock);
    return;
  }
  for (int j = 0; j < kQuantBlock / 2; ++j) {
    values[j] = static_cast<std::int8_t>((block[2 + j] & 0x0F) - 8);
    values[j + kQuantBlock / 2] = static_cast<std::int8_t>((block[2 + j] >> 4) - 8);
  }
}

BlockQuantized quantize_blocks(const Tensor& x, BlockFormat format) {
  if (x.rank() != 2 || x.type() != ElemType::kF32) throw std::invalid_argument("block quantization takes a float32 matrix");
  BlockQuantized w{format, x.dim(0), x.dim(1), {}};
  w.bytes = Tensor::matrix(w.rows, w.blocks_per_row() * block_bytes(format), ElemType::kI8);
  const auto in = x.data<float>();
  // Rows are independent: bands of rows on the GEMM threads (every weight of a functional run is
  // quantized once per layer), the same bytes whatever the split.
  const auto threads = static_cast<std::int64_t>(std::clamp<std::int64_t>(w.rows / 64, 1, default_gemm_threads()));
  parallel_for(static_cast<std::size_t>(threads), [&](std::size_t part) {
    float padded[kQuantBlock];
    const std::int64_t first = w.rows * static_cast<std::int64_t>(part) / threads, last = w.rows * static_cast<std::int64_t>(part + 1) / threads;
    std::int64_t r = first;
    if (format == BlockFormat::kQ4_0) {
      // Whole blocks of kTileLanes rows at a time through quantize_q4_0_lanes (the same bytes as
      // quantize_q4_0): each lane is one row's block, gathered into a tile's column.
      float tile[kQuantBlock][kTileLanes];
      std::uint8_t* blocks[kTileLanes];
      const std::int64_t whole = w.cols / kQuantBlock;
      for (; whole > 0 && r + kTileLanes <= last; r += kTileLanes) {
        for (std::int64_t b = 0; b < whole; ++b) {
          for (std::int64_t j = 0; j < kTileLanes; ++j) {
            const float* src = in.data() + (r + j) * w.cols + b * kQuantBlock;
            for (std::int64_t i = 0; i < kQuantBlock; ++i) tile[i][j] = src[i];
            blocks[j] = w.block(r + j, b);
          }
          quantize_q4_0_lanes(tile, blocks);
        }
        for (std::int64_t b = whole; b < w.blocks_per_row(); ++b) {  // a short last block, zero-padded
          for (std::int64_t j = 0; j < kTileLanes; ++j) {
            std::fill(padded, padded + kQuantBlock, 0.0f);
            std::copy_n(in.data() + (r + j) * w.cols + b * kQuantBlock, w.cols - b * kQuantBlock, padded);
            quantize_q4_0(padded, w.block(r + j, b));
          }
        }
      }
    }
    for (; r < last; ++r) {
      for (std::int64_t b = 0; b < w.blocks_per_row(); ++b) {
        const std::int64_t c0 = b * kQuantBlock, count = std::min(kQuantBlock, w.cols - c0);
        std::fill(padded, padded + kQuantBlock, 0.0f);
        std::copy_n(in.data() + r * w.cols + c0, count, padded);
        std::uint8_t* blk = w.block(r, b);
        format == BlockFormat::kQ4_0 ? quantize_q4_0(padded, blk) : quantize_q8_0(padded, blk);
      }
    }
  });
  return w;
}

BlockQuantized quantize_blocks_of_transpose(const Tensor& x, BlockFormat format) {
  if (x.rank() != 2 || x.type() != ElemType::kF32) throw std::invalid_argument("block quantization takes a float32 matrix");
  BlockQuantized w{format, x.dim(1), x.dim(0), {}};
  w.bytes = Tensor::matrix(w.rows, w.blocks_per_row() * block_bytes(format), ElemType::kI8);
  const float* in = x.data<float>().data();
  // A band of kTileLanes output rows (columns of x) at a time: a block's 32 values sit in 32 rows
  // of x, so a band's block is 32 runs of kTileLanes consecutive floats, gathered into a tile whose
  // columns are then quantized (Q4_0 of a whole band in vectors). Blocks outside, bands inside:
  // the 32 rows are read front to back, each run beside the last. Bands on the GEMM threads.
  const std::int64_t bands = (w.rows + kTileLanes - 1) / kTileLanes;
  const auto threads = static_cast<std::int64_t>(std::clamp<std::int64_t>(w.rows / 64, 1, default_gemm_threads()));
  parallel_for(static_cast<std::size_t>(threads), [&](std::size_t part) {
    float tile[kQuantBlock][kTileLanes];
    float padded[kQuantBlock];
    std::uint8_t* blocks[kTileLanes];
    const std::int64_t first = bands * static_cast<std::int64_t>(part) / threads, last = bands * static_cast<std::int64_t>(part + 1) / threads;
    for (std::int64_t b = 0; b < w.blocks_per_row(); ++b) {
      const std::int64_t c0 = b * kQuantBlock, count = std::min(kQuantBlock, w.cols - c0);
      for (std::int64_t band = first; band < last; ++band) {
        const std::int64_t r0 = band * kTileLanes, width = std::min(kTileLanes, w.rows - r0);
        for (std::int64_t i = 0; i < kQuantBlock; ++i) {
          float* t = tile[i];
          if (i >= count) {
            std::fill(t, t + kTileLanes, 0.0f);
          } else if (width == kTileLanes) {
            std::memcpy(t, in + (c0 + i) * w.rows + r0, sizeof tile[i]);
          } else {
            std::fill(t, t + kTileLanes, 0.0f);
            std::memcpy(t, in + (c0 + i) * w.rows + r0, static_cast<std::size_t>(width) * sizeof(float));
          }
        }
        if (format == BlockFormat::kQ4_0 && width == kTileLanes) {
          for (std::int64_t j = 0; j < kTileLanes; ++j) blocks[j] = w.block(r0 + j, b);
          quantize_q4_0_lanes(tile, blocks);
          continue;
        }
        for (std::int64_t j = 0; j < width; ++j) {
          for (std::int64_t i = 0; i < kQuantBlock; ++i) padded[i] = tile[i][j];
          std::uint8_t* blk = w.block(r0 + j, b);
          format == BlockFormat::kQ4_0 ? quantize_q4_0(padded, blk) : quantize_q8_0(padded, blk);
        }
      }
    }
  });
  return w;
}

BlockQuantized blocks_from_bytes(BlockFormat format, std::int64_t rows, std::int64_t cols, Tensor bytes) {
  BlockQuantized w{format, rows, cols, std::move(bytes)};
  const auto want = static_cast<std::size_t>(rows * w.blocks_per_row() * block_bytes(format));
  if (w.bytes.type() != ElemType::kI8 || w.bytes.bytes() != want) {
    throw std::invalid_argument(std::string(block_format_name(format)) + " matrix of " + std::to_string(rows) + "x" +
                                std::to_string(cols) + " needs " + std::to_string(want) + " bytes of int8 blocks");
  }
  return w;
}

Tensor dequantize_blocks(const BlockQuantized& w) {
  Tensor y = Tensor::matrix(w.rows, w.cols, ElemType::kF32);
  auto out = y.data<float>();
  for_each_value(w, [&](std::int64_t i, float d, std::int8_t v) { out[i] = d * static_cast<float>(v); });
  return y;
}

Tensor dequantize_blocks_to_half(const BlockQuantized& w) {
  Tensor exact = dequantize_blocks(w);  // d * v is exact in float (11 x 8 significant bits)
  Tensor y = Tensor::matrix(w.rows, w.cols, ElemType::kF16);
  narrow(exact.data<float>().data(), y.data<half>().data(), exact.numel());
  return y;
}

}  // namespace socsim::kernels
