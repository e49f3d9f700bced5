#include "kernels/quant/block_quant.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <vector>

#include "tests/unit/kernels/gemm/kernel_test_util.h"

namespace socsim::kernels {
namespace {

// ggml's reference quantizers (quantize_row_q4_0_ref / quantize_row_q8_0_ref), transcribed.
std::vector<std::uint8_t> ggml_q4_0(const float* x) {
  std::vector<std::uint8_t> b(18);
  float amax = 0, max = 0;
  for (int j = 0; j < 32; ++j)
    if (amax < std::fabs(x[j])) amax = std::fabs(x[j]), max = x[j];
  const float d = max / -8, id = d ? 1.0f / d : 0.0f;
  const std::uint16_t h = half_bits(static_cast<half>(d));
  b[0] = h & 0xFF, b[1] = h >> 8;
  for (int j = 0; j < 16; ++j) {
    const std::uint8_t lo = std::min(15, static_cast<int>(static_cast<std::int8_t>(x[j] * id + 8.5f)));
    const std::uint8_t hi = std::min(15, static_cast<int>(static_cast<std::int8_t>(x[16 + j] * id + 8.5f)));
    b[2 + j] = static_cast<std::uint8_t>(lo | hi << 4);
  }
  return b;
}

std::vector<std::uint8_t> ggml_q8_0(const float* x) {
  std::vector<std::uint8_t> b(34);
  float amax = 0;
  for (int j = 0; j < 32; ++j) amax = std::max(amax, std::fabs(x[j]));
  const float d = amax / 127, id = d ? 1.0f / d : 0.0f;
  const std::uint16_t h = half_bits(static_cast<half>(d));
  b[0] = h & 0xFF, b[1] = h >> 8;
  for (int j = 0; j < 32; ++j) b[2 + j] = static_cast<std::uint8_t>(static_cast<std::int8_t>(std::roundf(x[j] * id)));
  return b;
}

void expect_ggml_bytes(BlockFormat f, std::int64_t rows, std::int64_t cols) {
  Tensor x = test::random_f32(rows, cols, 71, -3, 3);
  // Rows of the kind the vector path must treat as the scalar one does: all zeros (scale 0), the
  // largest magnitude twice with opposite signs (the first wins), all -0.0, 1e-30 beside 1e30.
  for (std::int64_t c = 0; c < cols; ++c) {
    float* v = x.data<float>().data();
    if (rows > 0) v[c] = 0.0f;
    if (rows > 3) v[3 * cols + c] = -0.0f;
    if (rows > 4) v[4 * cols + c] = (c % 3 == 0 ? 1e30f : 1e-30f) * (c % 2 == 0 ? 1.0f : -1.0f);
  }
  if (rows > 1 && cols > 5) x.data<float>()[cols + 2] = 3.0f, x.data<float>()[cols + 5] = -3.0f;
  const BlockQuantized q = quantize_blocks(x, f);
  const std::int64_t nb = (cols + 31) / 32;
  ASSERT_EQ(q.bytes.bytes(), static_cast<std::size_t>(rows * nb * block_bytes(f)));
  for (std::int64_t r = 0; r < rows; ++r)
    for (std::int64_t b = 0; b < nb; ++b) {
      float blk[32] = {};
      for (std::int64_t j = 0; j < 32 && b * 32 + j < cols; ++j) blk[j] = x.data<float>()[r * cols + b * 32 + j];
      const auto want = f == BlockFormat::kQ4_0 ? ggml_q4_0(blk) : ggml_q8_0(blk);
      ASSERT_EQ(std::memcmp(q.block(r, b), want.data(), want.size()), 0) << "row " << r << " block " << b;
    }
}

TEST(Q4_0Blocks, SameBytesAsGgmlAndFourAndAHalfBits) {
  EXPECT_EQ(block_bytes(BlockFormat::kQ4_0), 18);
  EXPECT_DOUBLE_EQ(block_bits_per_weight(BlockFormat::kQ4_0), 4.5);
  expect_ggml_bytes(BlockFormat::kQ4_0, 5, 96);
  expect_ggml_bytes(BlockFormat::kQ4_0, 3, 65);  // short last block padded with zeros
  expect_ggml_bytes(BlockFormat::kQ4_0, 1, 1);
  // Enough rows for whole bands of 16 (quantized 16 rows at a time), with rows left over, and for
  // two threads (150 rows: 75 each, 4 bands and 11 rows); a short last block after whole ones.
  expect_ggml_bytes(BlockFormat::kQ4_0, 40, 96);
  expect_ggml_bytes(BlockFormat::kQ4_0, 37, 65);
  expect_ggml_bytes(BlockFormat::kQ4_0, 150, 33);
  expect_ggml_bytes(BlockFormat::kQ4_0, 16, 20);  // no whole block: every block short
}

// Sixteen rows at a time go through the vector path, a lone row through the scalar one: the same
// bytes for values ggml's test above cannot hold (its int8 cast of an out-of-range float is
// undefined): NaN, infinities, the largest floats, subnormals, zeros of both signs, placed at
// random with densities from one element in 1 to one in 16. Many random tiles, so every lane and
// byte position of the transpose is checked.
TEST(Q4_0Blocks, VectorPathMatchesTheScalarOneOnAnyFloats) {
  const float specials[] = {std::nanf(""), -std::nanf(""), INFINITY, -INFINITY, 3.4e38f, -3.4e38f, 1e-45f, -1e-45f, 0.0f, -0.0f, 1.0f, -8.0f};
  std::uint64_t state = 12345;
  const auto next = [&state] {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return state >> 33;
  };
  for (int trial = 0; trial < 40; ++trial) {
    SCOPED_TRACE(testing::Message() << "trial " << trial);
    const std::int64_t rows = 16 + static_cast<std::int64_t>(next() % 20), cols = 32 * (1 + static_cast<std::int64_t>(next() % 3));
    Tensor x = test::random_f32(rows, cols, 100 + static_cast<std::uint32_t>(trial), -4, 4);
    float* v = x.data<float>().data();
    const std::uint64_t density = 1 + next() % 16;  // a special value in about one element of 1..16
    for (std::int64_t e = 0; e < rows * cols; ++e) {
      if (next() % density == 0) v[e] = specials[next() % std::size(specials)];
    }
    const BlockQuantized all = quantize_blocks(x, BlockFormat::kQ4_0);
    for (std::int64_t r = 0; r < rows; ++r) {
      Tensor one = Tensor::matrix(1, cols, ElemType::kF32);
      std::memcpy(one.data<float>().data(), v + r * cols, static_cast<std::size_t>(cols) * sizeof(float));
      const BlockQuantized alone = quantize_blocks(one, BlockFormat::kQ4_0);
      for (std::int64_t b = 0; b < cols / 32; ++b) {
        ASSERT_EQ(std::memcmp(all.block(r, b), alone.block(0, b), 18), 0) << "row " << r << " block " << b;
      }
    }
  }
}

TEST(Q8_0Blocks, SameBytesAsGgmlAndEightAndAHalfBits) {
  EXPECT_EQ(block_bytes(BlockFormat::kQ8_0), 34);
  EXPECT_DOUBLE_EQ(block_bits_per_weight(BlockFormat::kQ8_0), 8.5);
  expect_ggml_bytes(BlockFormat::kQ8_0, 5, 96);
  expect_ggml_bytes(BlockFormat::kQ8_0, 3, 65);
}

TEST(Q4_0Blocks, DequantizesAsGgmlAndToHalf) {
  const Tensor x = test::random_f32(4, 70, 72, -2, 2);
  for (BlockFormat f : {BlockFormat::kQ4_0, BlockFormat::kQ8_0}) {
    const BlockQuantized q = quantize_blocks(x, f);
    const Tensor d = dequantize_blocks(q), h = dequantize_blocks_to_half(q);
    std::int8_t v[32];
    for (std::int64_t r = 0; r < 4; ++r)
      for (std::int64_t c = 0; c < 70; ++c) {
        const std::uint8_t* blk = q.block(r, c / 32);
        block_values(f, blk, v);
        const float s = static_cast<float>(block_scale(blk));
        const float want = s * v[c % 32];
        ASSERT_EQ(d.data<float>()[r * 70 + c], want);
        ASSERT_EQ(half_bits(h.data<half>()[r * 70 + c]), half_bits(static_cast<half>(want)));
        // Q4_0 error: within one step |d| (the side opposite the largest value clamps at +7);
        // Q8_0 within half a step; plus the FP16 rounding of d.
        const double step = std::fabs(s) * (f == BlockFormat::kQ4_0 ? 1.0 : 0.5);
        ASSERT_LE(std::fabs(want - x.data<float>()[r * 70 + c]), step * 1.01 + 1e-6);
      }
  }
}

TEST(Q4_0Blocks, NibbleOrderAndPackingRoundTrip) {
  // Element j in the low nibble of byte j, element j + 16 in the high nibble.
  Tensor x = Tensor::matrix(1, 32, ElemType::kF32);
  for (int j = 0; j < 32; ++j) x.data<float>()[j] = static_cast<float>(j - 16);  // max |.| = 16 -> d = 2
  const BlockQuantized q = quantize_blocks(x, BlockFormat::kQ4_0);
  EXPECT_EQ(static_cast<float>(block_scale(q.block(0, 0))), 2.0f);
  std::int8_t v[32];
  block_values(BlockFormat::kQ4_0, q.block(0, 0), v);
  EXPECT_EQ(v[0], -8);   // -16 / 2
  EXPECT_EQ(v[16], 0);
  EXPECT_EQ(v[31], 7);   // 15 / 2 = 7.5 -> trunc(7.5 + 8.5) = 16, clamped to 15 -> 7
  EXPECT_EQ(q.block(0, 0)[2], 0x00 | (8 << 4));
  const BlockQuantized again = blocks_from_bytes(BlockFormat::kQ4_0, 1, 32, q.bytes);
  EXPECT_EQ(std::memcmp(again.block(0, 0), q.block(0, 0), 18), 0);
  EXPECT_THROW(blocks_from_bytes(BlockFormat::kQ8_0, 1, 32, q.bytes), std::invalid_argument);
}

// The tiled quantization of a transpose gives the bytes of quantizing the transposed matrix:
// partial blocks (k not a multiple of 32), partial bands (n not a multiple of 16), one column, and
// enough rows for several threads.
TEST(BlockQuant, OfTransposeIsQuantizeOfTheTranspose) {
  for (const BlockFormat f : {BlockFormat::kQ4_0, BlockFormat::kQ8_0}) {
    for (const auto& [k, n] : std::vector<std::pair<std::int64_t, std::int64_t>>{{32, 16}, {70, 1}, {64, 37}, {95, 300}, {1, 5}, {256, 64}}) {
      SCOPED_TRACE(testing::Message() << block_format_name(f) << " k " << k << " n " << n);
      Tensor x = test::random_f32(k, n, 41);
      // Column 0 all zeros (scale 0), column 1's largest magnitude twice with opposite signs (the
      // first wins, as in ggml), column 2 one value far above the rest.
      for (std::int64_t r = 0; r < k; ++r) x.data<float>()[r * n] = 0.0f;
      if (n > 2 && k > 5) {
        x.data<float>()[2 * n + 1] = 3.0f, x.data<float>()[5 * n + 1] = -3.0f;
        x.data<float>()[4 * n + 2] = -1000.0f;
      }
      // Column 3 all -0.0 (a scale of -0), column 4 magnitudes from 1e-30 to 1e30.
      for (std::int64_t r = 0; n > 4 && r < k; ++r) {
        x.data<float>()[r * n + 3] = -0.0f;
        x.data<float>()[r * n + 4] = (r % 3 == 0 ? 1e30f : 1e-30f) * (r % 2 == 0 ? 1.0f : -1.0f);
      }
      Tensor t = Tensor::matrix(n, k, ElemType::kF32);
      for (std::int64_t r = 0; r < k; ++r) {
        for (std::int64_t c = 0; c < n; ++c) t.data<float>()[c * k + r] = x.data<float>()[r * n + c];
      }
      const BlockQuantized want = quantize_blocks(t, f), got = quantize_blocks_of_transpose(x, f);
      EXPECT_EQ(got.rows, n);
      EXPECT_EQ(got.cols, k);
      ASSERT_EQ(got.bytes.bytes(), want.bytes.bytes());
      EXPECT_EQ(std::memcmp(got.bytes.raw().data(), want.bytes.raw().data(), want.bytes.bytes()), 0);
    }
  }
}

}  // namespace
}  // namespace socsim::kernels
