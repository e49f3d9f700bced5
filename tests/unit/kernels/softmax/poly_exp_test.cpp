// The FP16 polynomial exp: exhaustively over all non-positive FP16 inputs against exp in long
// double, with the bound stated in poly_exp2.h; and the polynomial's own error over [0, 1).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstdint>

#include "kernels/softmax/poly_exp2.h"

namespace socsim::kernels {
namespace {

TEST(SoftmaxPolyExp, WithinStatedBoundForEveryNonPositiveHalf) {
  double worst_ratio = 0, worst_rel_at_8 = 0;
  for (std::uint32_t i = 0; i < 0x7c00u; ++i) {  // finite non-positive codes, -0 to -65504
    const half x = half_from_bits(static_cast<std::uint16_t>(i | 0x8000u));
    const double xd = to_float(x);
    const double got = to_float(exp_poly_fp16(x));
    const double want = std::exp(static_cast<long double>(xd));
    const double err = std::fabs(got - want);
    const double bound = exp_poly_error_bound(xd);
    ASSERT_LE(err, bound) << "x=" << xd << " got " << got << " want " << want;
    worst_ratio = std::max(worst_ratio, err / bound);
    if (xd >= -8) worst_rel_at_8 = std::max(worst_rel_at_8, err / want);
  }
  // The bound is not vacuous: the worst input uses a good part of it, and on [-8, 0] the error
  // stays under 0.7% (the growth with |x| comes from rounding t = x log2e to FP16).
  std::printf("  poly exp: worst error %.2f of the bound; max rel err on [-8, 0] %.2e\n", worst_ratio, worst_rel_at_8);
  EXPECT_GT(worst_ratio, 0.3);
  EXPECT_LT(worst_rel_at_8, 7e-3);
}

TEST(SoftmaxPolyExp, SpecialInputs) {
  EXPECT_EQ(to_float(exp_poly_fp16(to_half(0.0f))), 1.0f);
  EXPECT_EQ(to_float(exp_poly_fp16(to_half(-0.0f))), 1.0f);
  EXPECT_EQ(to_float(exp_poly_fp16(half_from_bits(0xfc00))), 0.0f);  // -inf
  EXPECT_TRUE(std::isnan(to_float(exp_poly_fp16(half_from_bits(0xfe00)))));
  EXPECT_EQ(to_float(exp_poly_fp16(to_half(-30.0f))), 0.0f);
  // exp(-1) = 0.36788; FP16 spacing there is 2^-12.
  EXPECT_NEAR(to_float(exp_poly_fp16(to_half(-1.0f))), 0.36788, 4 * std::ldexp(1.0, -12));
}

}  // namespace
}  // namespace socsim::kernels
