#include "kernels/gemm/gemm_w4a16.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "kernel_test_util.h"

namespace socsim::kernels {
namespace {

struct Shape {
  std::int64_t m, k, n;
};

// The plain reference: dequantize every weight to FP16 the stated way -- half(float(d) * value) --
// written out here from the block bytes, then the HMX FP16 rule.
Tensor reference(const Tensor& a, const BlockQuantized& wq) {
  Tensor w = Tensor::matrix(wq.cols, wq.rows, ElemType::kF16);  // W[k x n]
  for (std::int64_t j = 0; j < wq.rows; ++j) {
    for (std::int64_t kk = 0; kk < wq.cols; ++kk) {
      const std::uint8_t* blk = wq.block(j, kk / 32);
      const float d = static_cast<float>(half_from_bits(static_cast<std::uint16_t>(blk[0] | blk[1] << 8)));
      const int x = static_cast<int>(kk % 32);
      int v = 0;
      if (wq.format == BlockFormat::kQ4_0) {
        v = (x < 16 ? (blk[2 + x] & 0x0F) : (blk[2 + x - 16] >> 4)) - 8;
      } else {
        v = static_cast<std::int8_t>(blk[2 + x]);
      }
      w.data<half>()[kk * wq.rows + j] = static_cast<half>(d * static_cast<float>(v));
    }
  }
  return test::ref_gemm_f16_hmx_rule(a, w);
}

TEST(GemmW4A16, Q4AndQ8MatchTheDequantizeThenFp16Reference) {
  for (const Shape s : {Shape{1, 1, 1}, Shape{33, 65, 17}, Shape{100, 300, 70}, Shape{1, 544, 40}}) {
    const Tensor a = test::random_f16(s.m, s.k, 21);
    const Tensor wt = test::random_f32(s.n, s.k, 22);  // W transposed: one row per output column
    for (BlockFormat f : {BlockFormat::kQ4_0, BlockFormat::kQ8_0}) {
      SCOPED_TRACE(testing::Message() << s.m << "x" << s.k << "x" << s.n << " " << block_format_name(f));
      const BlockQuantized wq = quantize_blocks(wt, f);
      const Tensor c = gemm_w4a16(a, wq, 2);
      const Tensor ref = reference(a, wq);
      ASSERT_EQ(c.dim(0), s.m);
      ASSERT_EQ(c.dim(1), s.n);
      ASSERT_EQ(std::memcmp(c.raw().data(), ref.raw().data(), c.bytes()), 0);
    }
  }
}

TEST(GemmW4A16, Q8IsCloserToTheFloatWeightsThanQ4) {
  const Tensor a = test::random_f16(8, 256, 23), wt = test::random_f32(24, 256, 24);
  double err4 = 0, err8 = 0;
  const Tensor c4 = gemm_w4a16(a, quantize_blocks(wt, BlockFormat::kQ4_0));
  const Tensor c8 = gemm_w4a16(a, quantize_blocks(wt, BlockFormat::kQ8_0));
  for (std::int64_t i = 0; i < 8; ++i)
    for (std::int64_t j = 0; j < 24; ++j) {
      double s = 0;
      for (std::int64_t kk = 0; kk < 256; ++kk) s += static_cast<double>(a.data<half>()[i * 256 + kk]) * wt.data<float>()[j * 256 + kk];
      err4 += std::fabs(static_cast<double>(c4.data<half>()[i * 24 + j]) - s);
      err8 += std::fabs(static_cast<double>(c8.data<half>()[i * 24 + j]) - s);
    }
  EXPECT_LT(err8, err4 / 4);
}

TEST(GemmW4A16, RejectsMismatchedDepth) {
  const BlockQuantized wq = quantize_blocks(test::random_f32(4, 64, 1), BlockFormat::kQ4_0);
  EXPECT_THROW(gemm_w4a16(test::random_f16(2, 63, 1), wq), std::invalid_argument);
}

}  // namespace
}  // namespace socsim::kernels
