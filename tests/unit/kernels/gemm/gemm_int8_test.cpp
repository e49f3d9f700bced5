#include "kernels/gemm/gemm_int8.h"

#include <gtest/gtest.h>

#include "kernel_test_util.h"
#include "kernels/quant/int8_quant.h"

namespace socsim::kernels {
namespace {

struct Shape {
  std::int64_t m, k, n;
};

void expect_exact(const Tensor& a, const Tensor& w, unsigned threads) {
  const Tensor c = gemm_i8(a, w, threads);
  const auto ref = test::ref_gemm_i8(a, w);
  ASSERT_EQ(c.dim(0), a.dim(0));
  ASSERT_EQ(c.dim(1), w.dim(1));
  const auto got = c.data<std::int32_t>();
  for (std::size_t i = 0; i < ref.size(); ++i) ASSERT_EQ(got[i], ref[i]) << "element " << i;
}

TEST(GemmInt8, ExactOnOddShapes) {
  // Shapes that are no multiple of the 6x16 micro-tile, of the 256-deep block, or of anything.
  for (const Shape s : {Shape{1, 1, 1}, Shape{33, 65, 17}, Shape{100, 300, 70}, Shape{7, 1030, 5}, Shape{2, 3, 200}}) {
    const Tensor a = test::random_i8(s.m, s.k, 1), w = test::random_i8(s.k, s.n, 2);
    for (unsigned threads : {1u, 2u, 3u}) {
      SCOPED_TRACE(testing::Message() << s.m << "x" << s.k << "x" << s.n << " threads " << threads);
      expect_exact(a, w, threads);
    }
  }
}

TEST(GemmInt8, ExactAtTheExtremesBeyondFloatPrecision) {
  // -128 * -128 * 2000 = 32,768,000 > 2^24: only exact because each 256-deep block sums exactly
  // in float and the blocks are joined in INT32.
  const Tensor a = test::filled_i8(3, 2000, -128), w = test::filled_i8(2000, 20, -128);
  const Tensor c = gemm_i8(a, w, 2);
  for (auto v : c.data<std::int32_t>()) ASSERT_EQ(v, 32'768'000);
  const Tensor wp = test::filled_i8(2000, 20, 127);
  const Tensor cp = gemm_i8(a, wp, 2);
  for (auto v : cp.data<std::int32_t>()) ASSERT_EQ(v, -128 * 127 * 2000);
}

TEST(GemmInt8, EmptyAndMismatchedShapes) {
  EXPECT_EQ(gemm_i8(test::random_i8(0, 5, 1), test::random_i8(5, 3, 2)).numel(), 0u);
  const Tensor zero_k = gemm_i8(test::random_i8(2, 0, 1), test::random_i8(0, 3, 2));
  for (auto v : zero_k.data<std::int32_t>()) EXPECT_EQ(v, 0);
  EXPECT_THROW(gemm_i8(test::random_i8(2, 5, 1), test::random_i8(4, 3, 2)), std::invalid_argument);
  EXPECT_THROW(gemm_i8(test::random_f32(2, 5, 1), test::random_i8(5, 3, 2)), std::invalid_argument);
}

TEST(GemmInt8, DequantizeAppliesBothScales) {
  Tensor c = Tensor::matrix(1, 3, ElemType::kI32);
  c.data<std::int32_t>()[0] = 100, c.data<std::int32_t>()[1] = -7, c.data<std::int32_t>()[2] = 0;
  const Tensor y = dequantize_i32(c, 0.5f, 0.25f);
  EXPECT_EQ(y.data<float>()[0], 12.5f);  // 100 * 0.125
  EXPECT_EQ(y.data<float>()[1], -0.875f);
  EXPECT_EQ(y.data<float>()[2], 0.0f);
}

TEST(GemmInt8, W8A8ApproximatesTheFloatProduct) {
  // Per-tensor W8A8 end to end with |x|, |w| <= 1: each of the 70 terms is off by at most
  // sa/2 (1 + sw/2) + sw/2 (1 + sa/2) + sa sw / 4 <= sa/2 + sw/2 + sa sw.
  const Tensor x = test::random_f32(9, 70, 3), wf = test::random_f32(70, 11, 4);
  const auto qa = quantize_per_tensor(x), qw = quantize_per_tensor(wf);
  const Tensor y = dequantize_i32(gemm_i8(qa.q, qw.q), qa.scale, qw.scale);
  const auto ref = test::ref_gemm_f64<float>(x, wf);
  for (std::int64_t i = 0; i < 9 * 11; ++i) {
    const double bound = 70 * (qa.scale / 2 + qw.scale / 2 + qa.scale * qw.scale) + 1e-5;
    EXPECT_NEAR(y.data<float>()[i], ref.c[i], bound);
  }
}

}  // namespace
}  // namespace socsim::kernels
