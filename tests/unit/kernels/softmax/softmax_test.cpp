// Softmax `compute`: FP32 exact against a double reference; the FP16 variants (exact, poly, LUT)
// against the exact softmax of the same FP16 inputs with the per-element bound of softmax.h.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <random>
#include <vector>

#include "kernels/softmax/poly_exp2.h"
#include "kernels/softmax/softmax.h"

namespace socsim::kernels {
namespace {

constexpr double kU = 1.0 / 2048;  // FP16 unit roundoff, 2^-11

std::vector<double> ref_softmax(const std::vector<double>& x) {
  double m = -INFINITY;
  for (double v : x) m = std::max(m, v);
  std::vector<double> y(x.size(), 0.0);
  if (m == -INFINITY) return y;
  long double s = 0;
  for (std::size_t j = 0; j < x.size(); ++j) s += y[j] = std::exp(static_cast<long double>(x[j] - m));
  for (double& v : y) v = static_cast<double>(v / s);
  return y;
}

Tensor random_matrix(std::int64_t rows, std::int64_t cols, ElemType t, double sigma, unsigned seed) {
  Tensor x = Tensor::matrix(rows, cols, t);
  std::mt19937 rng(seed);
  std::normal_distribution<float> nd(0.0f, static_cast<float>(sigma));
  for (std::size_t i = 0; i < x.numel(); ++i) {
    const float v = nd(rng);
    if (t == ElemType::kF32) x.data<float>()[i] = v; else x.data<half>()[i] = to_half(v);
  }
  return x;
}

TEST(SoftmaxExact, MatchesDoubleReference) {
  for (auto [rows, cols] : {std::pair<int, int>{1, 1}, {3, 37}, {5, 1000}}) {
    Tensor x = random_matrix(rows, cols, ElemType::kF32, 4.0, 7u + static_cast<unsigned>(cols));
    if (cols > 1) x.data<float>()[1] = -std::numeric_limits<float>::infinity();  // a masked entry
    const Tensor y = softmax_f32(x);
    for (int r = 0; r < rows; ++r) {
      std::vector<double> row(x.data<float>().begin() + r * cols, x.data<float>().begin() + (r + 1) * cols);
      const auto want = ref_softmax(row);
      for (int j = 0; j < cols; ++j) {
        // FP32: exp and the product within a few ulp, the sequential sum within cols ulp.
        const double tol = want[j] * (cols + 8) * std::ldexp(1.0, -24) + 1e-37;
        ASSERT_NEAR(y.data<float>()[r * cols + j], want[j], tol) << rows << "x" << cols << " (" << r << "," << j << ")";
      }
    }
  }
}

TEST(SoftmaxExact, FullyMaskedRowIsZero) {
  Tensor x = Tensor::matrix(1, 4, ElemType::kF32);
  for (float& v : x.data<float>()) v = -std::numeric_limits<float>::infinity();
  const Tensor y = softmax_f32(x);
  for (float v : y.data<float>()) EXPECT_EQ(v, 0.0f);
}

// Relative error bound of one exp variant at d <= 0 (softmax.h), including rounding d itself.
double eps_exp(ExpVariant v, double d) {
  const double round_d = std::fabs(d) * kU;
  if (v == ExpVariant::kPoly) return round_d + (exp_poly_error_bound(d) - std::ldexp(1.0, -25)) / std::exp(d);
  return round_d + kU;
}

struct Measured {
  double worst_ratio = 0;  // error / bound
  double max_rel = 0;      // over outputs >= 1e-3
};

Measured check_fp16(ExpVariant v, int rows, int cols, double sigma, unsigned seed) {
  const LutExpTable lut;
  Tensor x = random_matrix(rows, cols, ElemType::kF16, sigma, seed);
  const Tensor y = softmax_f16(x, v, &lut);
  Measured out;
  for (int r = 0; r < rows; ++r) {
    std::vector<double> row(cols);
    for (int j = 0; j < cols; ++j) row[j] = to_float(x.data<half>()[r * cols + j]);
    const auto want = ref_softmax(row);
    const double m = *std::max_element(row.begin(), row.end());
    double num = 0, den = 0;
    for (int j = 0; j < cols; ++j) {
      const double e = std::exp(row[j] - m);
      num += e * eps_exp(v, row[j] - m);
      den += e;
    }
    const double sum_rel = num / den;
    for (int j = 0; j < cols; ++j) {
      const double got = to_float(y.data<half>()[r * cols + j]);
      const double bound = want[j] * (eps_exp(v, row[j] - m) + sum_rel + kU + (cols + 2) * std::ldexp(1.0, -24)) +
                           std::ldexp(1.0, -24);
      const double err = std::fabs(got - want[j]);
      EXPECT_LE(err, bound) << exp_variant_name(v) << " " << rows << "x" << cols << " (" << r << "," << j << ")";
      out.worst_ratio = std::max(out.worst_ratio, err / bound);
      if (want[j] >= 1e-3) out.max_rel = std::max(out.max_rel, err / want[j]);
    }
  }
  std::printf("  softmax fp16 %s %dx%d sigma %.0f: max rel err %.2e (outputs >= 1e-3), %.2f of the bound\n", exp_variant_name(v), rows,
              cols, sigma, out.max_rel, out.worst_ratio);
  return out;
}

TEST(SoftmaxFp16, LutWithinBound) {
  for (auto [rows, cols] : {std::pair<int, int>{1, 1}, {4, 33}, {6, 1000}}) {
    const auto m = check_fp16(ExpVariant::kLut, rows, cols, 3.0, 11u + static_cast<unsigned>(cols));
    EXPECT_LT(m.max_rel, 6e-3) << cols;  // |d| up to ~15 here: rounding d dominates
  }
}

TEST(SoftmaxFp16, PolyWithinBound) {
  for (auto [rows, cols] : {std::pair<int, int>{1, 1}, {4, 33}, {6, 1000}}) {
    const auto m = check_fp16(ExpVariant::kPoly, rows, cols, 3.0, 21u + static_cast<unsigned>(cols));
    EXPECT_LT(m.max_rel, 1.5e-2) << cols;
  }
}

TEST(SoftmaxFp16, ExactVariantWithinBound) {
  const auto m = check_fp16(ExpVariant::kExact, 5, 257, 2.0, 5u);
  EXPECT_LT(m.max_rel, 5e-3);
}

TEST(SoftmaxFp16, LutBeatsPolyOnWideLogits) {
  // The TTS paper's accuracy argument: with logits spread over [-12, 0], the LUT's error is only
  // the rounding of d, the polynomial's grows with |d|.
  const auto lut = check_fp16(ExpVariant::kLut, 8, 512, 4.0, 99u);
  const auto poly = check_fp16(ExpVariant::kPoly, 8, 512, 4.0, 99u);
  EXPECT_LT(lut.max_rel, poly.max_rel);
}

TEST(SoftmaxFp16, BuildsItsOwnLutWhenNoneGiven) {
  Tensor x = Tensor::matrix(1, 3, ElemType::kF16);
  x.data<half>()[0] = to_half(0.0f), x.data<half>()[1] = to_half(-1.0f), x.data<half>()[2] = half_from_bits(0xfc00);
  const Tensor y = softmax_f16(x, ExpVariant::kLut);
  EXPECT_NEAR(to_float(y.data<half>()[0]), 1 / (1 + std::exp(-1.0)), 1e-3);
  EXPECT_EQ(to_float(y.data<half>()[2]), 0.0f);
  EXPECT_THROW(exp_f16(to_half(-1.0f), ExpVariant::kLut, nullptr), std::invalid_argument);
}

}  // namespace
}  // namespace socsim::kernels
