#include "kernels/gemm/gemm_float.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "kernel_test_util.h"

namespace socsim::kernels {
namespace {

struct Shape {
  std::int64_t m, k, n;
};
const Shape kShapes[] = {{1, 1, 1}, {33, 65, 17}, {100, 300, 70}, {5, 700, 40}, {1, 520, 300}};

TEST(GemmFloat, F32WithinTheDotProductBound) {
  for (const Shape s : kShapes) {
    SCOPED_TRACE(testing::Message() << s.m << "x" << s.k << "x" << s.n);
    const Tensor a = test::random_f32(s.m, s.k, 5), w = test::random_f32(s.k, s.n, 6);
    const Tensor c = gemm_f32(a, w, 2);
    const auto ref = test::ref_gemm_f64<float>(a, w);
    for (std::size_t i = 0; i < ref.c.size(); ++i) {
      ASSERT_LE(std::fabs(c.data<float>()[i] - ref.c[i]), test::gamma_f32(s.k) * ref.abs_sum[i] + 1e-30) << i;
    }
  }
}

// The weight read from its outputs-by-inputs layout gives gemm_f32's bits on the transposed copy
// (partial panels, depth past one block, one and several threads); mismatched k is refused.
TEST(GemmFloat, F32OutInIsGemmF32OfTheTranspose) {
  for (const Shape s : kShapes) {
    for (unsigned threads : {1u, 3u}) {
      SCOPED_TRACE(testing::Message() << s.m << "x" << s.k << "x" << s.n << " threads " << threads);
      const Tensor a = test::random_f32(s.m, s.k, 7), wt = test::random_f32(s.n, s.k, 8);
      Tensor w = Tensor::matrix(s.k, s.n, ElemType::kF32);
      for (std::int64_t j = 0; j < s.n; ++j) {
        for (std::int64_t k = 0; k < s.k; ++k) w.data<float>()[k * s.n + j] = wt.data<float>()[j * s.k + k];
      }
      const Tensor got = gemm_f32_out_in(a, wt, threads), want = gemm_f32(a, w, threads);
      ASSERT_EQ(got.numel(), want.numel());
      EXPECT_EQ(std::memcmp(got.raw().data(), want.raw().data(), want.bytes()), 0);
    }
  }
  EXPECT_THROW(gemm_f32_out_in(test::random_f32(2, 3, 1), test::random_f32(4, 2, 1)), std::invalid_argument);
}

TEST(GemmFloat, F16IsTheFp32SumRoundedOnce) {
  for (const Shape s : kShapes) {
    SCOPED_TRACE(testing::Message() << s.m << "x" << s.k << "x" << s.n);
    const Tensor a = test::random_f16(s.m, s.k, 7), w = test::random_f16(s.k, s.n, 8);
    const Tensor c = gemm_f16(a, w, 3);
    const Tensor rule = test::ref_gemm_f16_hmx_rule(a, w);
    ASSERT_EQ(std::memcmp(c.raw().data(), rule.raw().data(), c.bytes()), 0);
    // And the stated bound against FP64: 2^-11 |c| + (1 + 2^-11) g_k sum |a w| (+ 2^-25 near 0).
    const auto ref = test::ref_gemm_f64<half>(a, w);
    for (std::size_t i = 0; i < ref.c.size(); ++i) {
      const double bound = std::ldexp(std::fabs(ref.c[i]), -11) + (1 + std::ldexp(1.0, -11)) * test::gamma_f32(s.k) * ref.abs_sum[i] +
                           std::ldexp(1.0, -25);
      ASSERT_LE(std::fabs(static_cast<double>(c.data<half>()[i]) - ref.c[i]), bound) << i;
    }
  }
}

TEST(GemmFloat, ResultsDoNotDependOnThreadsOrBatch) {
  const Tensor a = test::random_f16(40, 600, 9), w = test::random_f16(600, 50, 10);
  const Tensor c1 = gemm_f16(a, w, 1), c4 = gemm_f16(a, w, 4);
  EXPECT_EQ(std::memcmp(c1.raw().data(), c4.raw().data(), c1.bytes()), 0);
  // Row 7 alone equals row 7 of the batch: every output is the same k-ascending chain.
  Tensor row = Tensor::matrix(1, 600, ElemType::kF16);
  std::memcpy(row.raw().data(), a.raw().data() + 7 * 600 * 2, 600 * 2);
  const Tensor c_row = gemm_f16(row, w, 2);
  EXPECT_EQ(std::memcmp(c_row.raw().data(), c1.raw().data() + 7 * 50 * 2, 50 * 2), 0);
}

TEST(GemmFloat, RejectsMismatchedOperands) {
  EXPECT_THROW(gemm_f32(test::random_f32(2, 3, 1), test::random_f32(4, 2, 1)), std::invalid_argument);
  EXPECT_THROW(gemm_f16(test::random_f32(2, 3, 1), test::random_f16(3, 2, 1)), std::invalid_argument);
}

}  // namespace
}  // namespace socsim::kernels
