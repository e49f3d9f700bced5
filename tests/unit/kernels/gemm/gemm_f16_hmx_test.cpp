#include "kernels/gemm/gemm_f16_hmx.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "kernel_test_util.h"
#include "kernels/gemm/gemm_float.h"

namespace socsim::kernels {
namespace {

struct Shape {
  std::int64_t m, k, n;
};

TEST(GemmF16Hmx, BitIdenticalToTheHmxRuleOnOddShapes) {
  for (const Shape s : {Shape{1, 1, 1}, Shape{33, 65, 17}, Shape{100, 300, 70}, Shape{3, 600, 40}}) {
    const Tensor a = test::random_f16(s.m, s.k, 11), w = test::random_f16(s.k, s.n, 12);
    const Tensor rule = test::ref_gemm_f16_hmx_rule(a, w);
    for (TileOrder worder : {TileOrder::kColumnMajor, TileOrder::kRowMajor}) {
      SCOPED_TRACE(testing::Message() << s.m << "x" << s.k << "x" << s.n << " weight tiles "
                                      << (worder == TileOrder::kColumnMajor ? "column-major" : "row-major"));
      const HmxTiled c = gemm_f16_hmx(to_hmx_tiles(a), to_hmx_tiles(w, worder), 2);
      EXPECT_EQ(c.rows, s.m);
      EXPECT_EQ(c.cols, s.n);
      const Tensor got = from_hmx_tiles(c);
      ASSERT_EQ(std::memcmp(got.raw().data(), rule.raw().data(), got.bytes()), 0);
      // The output's padding stays zero.
      std::size_t nonzero = 0;
      for (auto h : c.data.data<half>()) nonzero += half_bits(h) != 0;
      EXPECT_LE(nonzero, rule.numel());
    }
  }
}

TEST(GemmF16Hmx, WithinTheStatedBoundOfAnFp64Reference) {
  // Wider operands so that sums are large and FP16 rounding of the result dominates.
  const Tensor a = test::random_f16(37, 777, 13, -4, 4), w = test::random_f16(777, 45, 14, -4, 4);
  const Tensor c = from_hmx_tiles(gemm_f16_hmx(to_hmx_tiles(a), to_hmx_tiles(w, TileOrder::kColumnMajor)));
  const auto ref = test::ref_gemm_f64<half>(a, w);
  double worst = 0;
  for (std::size_t i = 0; i < ref.c.size(); ++i) {
    const double err = std::fabs(static_cast<double>(c.data<half>()[i]) - ref.c[i]);
    const double bound = std::ldexp(std::fabs(ref.c[i]), -11) +
                         (1 + std::ldexp(1.0, -11)) * test::gamma_f32(777) * ref.abs_sum[i] + std::ldexp(1.0, -25);
    ASSERT_LE(err, bound) << i;
    worst = std::max(worst, err / bound);
  }
  EXPECT_GT(worst, 0.1);  // the bound is not vacuous: rounding to FP16 uses a good part of it
}

TEST(GemmF16Hmx, SameNumbersAsTheRowMajorFp16Gemm) {
  const Tensor a = test::random_f16(50, 260, 15), w = test::random_f16(260, 33, 16);
  const Tensor tiled = from_hmx_tiles(gemm_f16_hmx(to_hmx_tiles(a), to_hmx_tiles(w, TileOrder::kColumnMajor), 1));
  const Tensor flat = gemm_f16(a, w, 2);
  EXPECT_EQ(std::memcmp(tiled.raw().data(), flat.raw().data(), flat.bytes()), 0);
}

TEST(GemmF16Hmx, RejectsMismatchedInnerExtents) {
  EXPECT_THROW(gemm_f16_hmx(make_hmx_tiled(4, 5), make_hmx_tiled(6, 4)), std::invalid_argument);
}

}  // namespace
}  // namespace socsim::kernels
