#pragma once
// ggml's Q4_0 and Q8_0 block formats, the W4A16 weights of the TTS NPU kernels and of llama.cpp.
// A matrix [rows x cols] is quantized along each row in blocks of 32 (a short last block is padded
// with zeros, which quantize to zero):
//   Q4_0: 18 bytes = FP16 scale d + 16 bytes of 4-bit values (4.5 bits/weight). d = m / -8 where m
//         is the block's value of largest magnitude (sign kept), q = min(15, trunc(x * (1/d) + 8.5)),
//         value = d * (q - 8). Byte i holds element i in its low nibble and element i + 16 in its
//         high nibble (ggml quantize_row_q4_0_ref / dequantize_row_q4_0).
//   Q8_0: 34 bytes = FP16 scale d + 32 int8 (8.5 bits/weight). d = max|x| / 127,
//         q = roundf(x * (1/d)) (half away from zero), value = d * q.
// In both, 1/d is taken from the float d before d is rounded to FP16, exactly as ggml does.
//
// Packing: the blocks live in a Tensor of raw bytes (ElemType::kI8, shape {rows, blocks * bytes
// per block}) in ggml's little-endian block layout, so a row is what llama.cpp stores on disk.
// For a GEMM weight W[k x n] the quantized matrix is W transposed (rows = n output columns,
// blocks along k), the ggml orientation.
#include <cstdint>

#include "kernels/tensor/half.h"
#include "kernels/tensor/tensor.h"

namespace socsim::kernels {

enum class BlockFormat { kQ4_0, kQ8_0 };

inline constexpr std::int64_t kQuantBlock = 32;
inline constexpr std::int64_t block_bytes(BlockFormat f) { return f == BlockFormat::kQ4_0 ? 18 : 34; }
inline constexpr double block_bits_per_weight(BlockFormat f) { return 8.0 * static_cast<double>(block_bytes(f)) / kQuantBlock; }
const char* block_format_name(BlockFormat f);

struct BlockQuantized {
  BlockFormat format = BlockFormat::kQ4_0;
  std::int64_t rows = 0, cols = 0;  // logical shape
  Tensor bytes;                     // int8 {rows, blocks_per_row() * block_bytes(format)}, raw ggml blocks

  std::int64_t blocks_per_row() const { return (cols + kQuantBlock - 1) / kQuantBlock; }
  const std::uint8_t* block(std::int64_t row, std::int64_t b) const {
    return bytes.raw().data() + (row * blocks_per_row() + b) * block_bytes(format);
  }
  std::uint8_t* block(std::int64_t row, std::int64_t b) {
    return bytes.raw().data() + (row * blocks_per_row() + b) * block_bytes(format);
  }
};

// Quantizes a finite float32 matrix row by row. As in ggml, a block whose largest magnitude is
// below about 2.4e-38 has an infinite inverse scale and its values convert NaN to int (what x86
// gives for that is kept: the bytes are ggml's on that host); real weights never come near.
BlockQuantized quantize_blocks(const Tensor& x, BlockFormat format);

// The blocks of x's transpose, the same bytes as quantize_blocks(transpose(x)): x is [k x n] (a
// weight stored inputs by outputs), the result n rows of k. Reads x in tiles, so the transposed
// float matrix (as large as the weight) is never made.
BlockQuantized quantize_blocks_of_transpose(const Tensor& x, BlockFormat format);

// Wraps existing ggml block bytes (e.g. read from a model file); checks the size.
BlockQuantized blocks_from_bytes(BlockFormat format, std::int64_t rows, std::int64_t cols, Tensor bytes);

// The FP16 scale of a block and its 32 integer values (Q4_0: q - 8 in [-8, 7]; Q8_0: q).
inline half block_scale(const std::uint8_t* block) {
  return half_from_bits(static_cast<std::uint16_t>(block[0] | (block[1] << 8)));
}
void block_values(BlockFormat format, const std::uint8_t* block, std::int8_t* values);

// float32 [rows x cols]: float(d) * value, ggml's dequantization (FP32 arithmetic).
Tensor dequantize_blocks(const BlockQuantized& w);
// float16 [rows x cols]: half(float(d) * value), one FP16 rounding of the exact product, as an
// FP16 multiply by the scale produces it (HVX dequantization; the W4A16 GEMM's weights).
Tensor dequantize_blocks_to_half(const BlockQuantized& w);

}  // namespace socsim::kernels
