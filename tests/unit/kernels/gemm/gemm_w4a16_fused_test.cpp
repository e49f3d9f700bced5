#include "kernels/gemm/w4a16_fused.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <random>

#include "kernel_test_util.h"
#include "kernels/gemm/gemm_w4a16.h"
#include "kernels/gemm/packed_gemm.h"

namespace socsim::kernels {
namespace {

// The fused path (decode, m <= kW4A16FusedMaxRows) against the packed path it replaces there:
// every output must carry the same 16 bits, or functional-mode accuracy and goldens would move.

struct Depth {
  std::int64_t k, n;
};

// Depths: one block, a short last block, exactly one packed depth block (kGemmKc), more than one
// with a remainder that is not a whole quantization block; widths: odd, below and above one column
// group (16), and a multiple of it.
constexpr Depth kDepths[] = {{32, 1}, {32, 17}, {40, 33}, {kGemmKc, 16}, {kGemmKc + 32, 47}, {2 * kGemmKc + 77, 95}, {1000, 64}};
constexpr unsigned kThreads[] = {1, 2, 3, 7};
constexpr BlockFormat kFormats[] = {BlockFormat::kQ4_0, BlockFormat::kQ8_0};
constexpr const char* kNoFusedPath = "no AVX2/FMA/F16C on this host: gemm_w4a16 uses the packed path only";

testing::AssertionResult same_bits(const Tensor& fused, const Tensor& packed) {
  if (fused.dim(0) != packed.dim(0) || fused.dim(1) != packed.dim(1)) return testing::AssertionFailure() << "shapes differ";
  for (std::size_t i = 0; i < fused.numel(); ++i) {
    const std::uint16_t f = half_bits(fused.data<half>()[i]), p = half_bits(packed.data<half>()[i]);
    // A NaN's sign and payload depend on the instructions the compiler picked (FMA or not, operand
    // order), which differ between the Release and sanitizer builds: any NaN matches any NaN.
    const auto is_nan = [](std::uint16_t h) { return (h & 0x7C00u) == 0x7C00u && (h & 0x03FFu) != 0; };
    if (is_nan(f) && is_nan(p)) continue;
    if (f != p) return testing::AssertionFailure() << "element " << i << ": fused 0x" << std::hex << f << ", packed 0x" << p;
  }
  return testing::AssertionSuccess();
}

TEST(GemmW4A16Fused, MatchesThePackedPathBitForBit) {
  if (!w4a16_fused_available()) GTEST_SKIP() << kNoFusedPath;
  for (BlockFormat f : kFormats) {
    for (const Depth s : kDepths) {
      const BlockQuantized wq = quantize_blocks(test::random_f32(s.n, s.k, 31), f);
      for (std::int64_t m = 1; m <= kW4A16FusedMaxRows + 1; ++m) {
        const Tensor a = test::random_f16(m, s.k, 32 + static_cast<std::uint32_t>(m));
        for (unsigned threads : kThreads) {
          SCOPED_TRACE(testing::Message() << block_format_name(f) << " " << m << "x" << s.k << "x" << s.n << " threads " << threads);
          const Tensor packed = gemm_w4a16_packed(a, wq, threads);
          EXPECT_TRUE(same_bits(gemm_w4a16_fused(a, wq, threads), packed));
          EXPECT_TRUE(same_bits(gemm_w4a16(a, wq, threads), packed));  // whichever path it takes
        }
      }
    }
  }
}

// More rows than one pass over the weights serves: the passes must not disturb each other.
TEST(GemmW4A16Fused, SeveralRowPassesMatch) {
  if (!w4a16_fused_available()) GTEST_SKIP() << kNoFusedPath;
  for (BlockFormat f : kFormats) {
    SCOPED_TRACE(block_format_name(f));
    const BlockQuantized wq = quantize_blocks(test::random_f32(37, 300, 33), f);
    const Tensor a = test::random_f16(3 * kW4A16FusedPassRows + 2, 300, 34);
    EXPECT_TRUE(same_bits(gemm_w4a16_fused(a, wq, 3), gemm_w4a16_packed(a, wq, 3)));
  }
}

// Arbitrary block bytes, as a model file may hold: scales across the whole FP16 range (subnormal
// weights, products that overflow FP16, infinite and NaN scales), every nibble, and garbage in the
// padding of the short last block (which neither path may read).
TEST(GemmW4A16Fused, ArbitraryBlockBytesMatch) {
  if (!w4a16_fused_available()) GTEST_SKIP() << kNoFusedPath;
  const std::int64_t n = 29, k = 2 * kGemmKc + 50;
  for (BlockFormat f : kFormats) {
    Tensor bytes = Tensor::matrix(n, (k + kQuantBlock - 1) / kQuantBlock * block_bytes(f), ElemType::kI8);
    std::mt19937 gen(35);
    for (auto& b : bytes.raw()) b = static_cast<std::uint8_t>(gen());
    const BlockQuantized wq = blocks_from_bytes(f, n, k, std::move(bytes));
    for (std::int64_t m = 1; m <= kW4A16FusedMaxRows; ++m) {
      SCOPED_TRACE(testing::Message() << block_format_name(f) << " m " << m);
      const Tensor a = test::random_f16(m, k, 36, -4, 4);
      EXPECT_TRUE(same_bits(gemm_w4a16_fused(a, wq, 2), gemm_w4a16_packed(a, wq, 2)));
    }
  }
}

// Weights quantized from very wide and very narrow ranges: FP16 overflow to infinity (and
// inf - inf = NaN in the sums) and FP16 subnormal weights.
TEST(GemmW4A16Fused, ExtremeMagnitudesMatch) {
  if (!w4a16_fused_available()) GTEST_SKIP() << kNoFusedPath;
  for (BlockFormat f : kFormats) {
    for (const float range : {3e5f, 1e-5f}) {
      SCOPED_TRACE(testing::Message() << block_format_name(f) << " weights in +-" << range);
      const BlockQuantized wq = quantize_blocks(test::random_f32(21, 96, 37, -range, range), f);
      const Tensor a = test::random_f16(2, 96, 38);
      EXPECT_TRUE(same_bits(gemm_w4a16_fused(a, wq, 2), gemm_w4a16_packed(a, wq, 2)));
    }
  }
}

TEST(GemmW4A16Fused, EmptyShapesAndMismatchedDepth) {
  if (!w4a16_fused_available()) GTEST_SKIP() << kNoFusedPath;
  const BlockQuantized wq = quantize_blocks(test::random_f32(4, 64, 1), BlockFormat::kQ4_0);
  const Tensor c = gemm_w4a16_fused(Tensor::matrix(0, 64, ElemType::kF16), wq, 2);
  EXPECT_EQ(c.dim(0), 0);
  EXPECT_EQ(c.dim(1), 4);
  EXPECT_THROW(gemm_w4a16_fused(test::random_f16(1, 63, 1), wq), std::invalid_argument);
}

}  // namespace
}  // namespace socsim::kernels
