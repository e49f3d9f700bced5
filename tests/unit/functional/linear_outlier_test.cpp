// Per-tensor W8A8 with llm.npu's outlier handling (linear.h): the shadow path recombines the
// out-of-range excess exactly, so its error is the inliers' rounding alone; min-max scaling and
// clipping lose more on inputs with outlier channels.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>

#include "kernels/gemm/gemm_float.h"
#include "sim/functional/linear.h"

namespace socsim::functional {
namespace {

using kernels::Tensor;

Tensor random_matrix(std::int64_t r, std::int64_t c, std::uint64_t seed, float scale) {
  Tensor t = Tensor::matrix(r, c, kernels::ElemType::kF32);
  std::mt19937_64 g(seed);
  std::normal_distribution<float> n(0.0f, scale);
  for (auto& v : t.data<float>()) v = n(g);
  return t;
}

double rel_error(const Tensor& a, const Tensor& b) {
  double num = 0, den = 0;
  const auto x = a.data<float>(), y = b.data<float>();
  for (std::size_t i = 0; i < x.size(); ++i) num += (x[i] - y[i]) * (x[i] - y[i]), den += y[i] * y[i];
  return std::sqrt(num / den);
}

TEST(LinearOutliers, ShadowBeatsMinMaxAndClipOnOutlierChannels) {
  Tensor x = random_matrix(32, 256, 1, 1.0f);
  auto xv = x.data<float>();
  for (std::int64_t r = 0; r < 32; ++r) {
    for (std::int64_t c : {3, 70, 150, 201}) xv[r * 256 + c] *= 30.0f;  // persistent outlier channels
  }
  const Tensor w = random_matrix(256, 128, 2, 0.05f);
  const Tensor exact = kernels::gemm_f32(x, w);
  Linear l(w, Linear::Orientation::kInOut);
  const double shadow = rel_error(l.apply(x, runtime::Precision::kW8A8, runtime::OutlierHandling::kShadow, 4), exact);
  const double minmax = rel_error(l.apply(x, runtime::Precision::kW8A8, runtime::OutlierHandling::kMinMax, 4), exact);
  const double clip = rel_error(l.apply(x, runtime::Precision::kW8A8, runtime::OutlierHandling::kClip, 4), exact);
  EXPECT_LT(shadow, 0.5 * minmax) << shadow << " vs " << minmax;
  EXPECT_LT(shadow, 0.1 * clip) << shadow << " vs " << clip;
  // Without outliers in the input the shadow path has nothing to recombine and the offline scale
  // is about the min-max one.
  const Tensor plain = random_matrix(32, 256, 3, 1.0f);
  const double s0 = rel_error(l.apply(plain, runtime::Precision::kW8A8, runtime::OutlierHandling::kShadow, 4), kernels::gemm_f32(plain, w));
  EXPECT_LT(s0, 0.05);
}

TEST(LinearOutliers, OtherPrecisionsIgnoreTheHandling) {
  const Tensor x = random_matrix(8, 64, 4, 1.0f), w = random_matrix(64, 16, 5, 0.1f);
  Linear a(w, Linear::Orientation::kInOut), b(w, Linear::Orientation::kInOut);
  const Tensor p = a.apply(x, runtime::Precision::kW4A16, runtime::OutlierHandling::kShadow, 4);
  const Tensor q = b.apply(x, runtime::Precision::kW4A16);
  EXPECT_EQ(std::memcmp(p.raw().data(), q.raw().data(), p.bytes()), 0);
}

}  // namespace
}  // namespace socsim::functional
