#include "kernels/quant/int8_quant.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "tests/unit/kernels/gemm/kernel_test_util.h"

namespace socsim::kernels {
namespace {

Tensor row(std::initializer_list<float> v) {
  Tensor t = Tensor::matrix(1, static_cast<std::int64_t>(v.size()), ElemType::kF32);
  std::copy(v.begin(), v.end(), t.data<float>().begin());
  return t;
}

TEST(QuantPerTensor, MinMaxScaleAndRounding) {
  const Tensor x = row({-2.54f, 1.0f, 0.0f, 2.54f});
  EXPECT_FLOAT_EQ(minmax_scale(x), 2.54f / 127);
  const auto q = quantize_per_tensor(x);
  EXPECT_EQ(q.scale, 2.54f / 127.0f);
  const auto v = q.q.data<std::int8_t>();
  EXPECT_EQ(v[0], -127);
  EXPECT_EQ(v[1], 50);  // 1 / 0.02 = 50
  EXPECT_EQ(v[2], 0);
  EXPECT_EQ(v[3], 127);
}

TEST(QuantPerTensor, GivenScaleTiesToEvenAndClamps) {
  // scale 1: 2.5 -> 2, 3.5 -> 4, -2.5 -> -2 (ties to even); 200 -> 127, -1000 -> -127 (never -128).
  const auto q = quantize_per_tensor(row({2.5f, 3.5f, -2.5f, 200.0f, -1000.0f, 126.6f}), 1.0f);
  const auto v = q.q.data<std::int8_t>();
  EXPECT_EQ(v[0], 2);
  EXPECT_EQ(v[1], 4);
  EXPECT_EQ(v[2], -2);
  EXPECT_EQ(v[3], 127);
  EXPECT_EQ(v[4], -127);
  EXPECT_EQ(v[5], 127);
  EXPECT_THROW(quantize_per_tensor(row({1.0f}), 0.0f), std::invalid_argument);
  EXPECT_THROW(quantize_per_tensor(row({1.0f}), -1.0f), std::invalid_argument);
}

TEST(QuantPerTensor, RoundTripErrorIsAtMostHalfAStep) {
  const Tensor x = test::random_f32(17, 33, 51, -3, 3);
  const auto q = quantize_per_tensor(x);
  const Tensor y = dequantize_per_tensor(q.q, q.scale);
  for (std::size_t i = 0; i < x.numel(); ++i) {
    // Plain reference: round(x / s) clamped, times s.
    const float ref = std::clamp(std::nearbyint(x.data<float>()[i] / q.scale), -127.0f, 127.0f) * q.scale;
    ASSERT_EQ(y.data<float>()[i], ref);
    ASSERT_LE(std::fabs(y.data<float>()[i] - x.data<float>()[i]), q.scale / 2 * (1 + 1e-6));
  }
}

TEST(QuantPerTensor, HalfInputAndDegenerateTensors) {
  const Tensor h = test::random_f16(4, 9, 52);
  Tensor f = Tensor::matrix(4, 9, ElemType::kF32);
  for (std::size_t i = 0; i < h.numel(); ++i) f.data<float>()[i] = static_cast<float>(h.data<half>()[i]);
  const auto qh = quantize_per_tensor(h), qf = quantize_per_tensor(f);
  EXPECT_EQ(qh.scale, qf.scale);
  EXPECT_TRUE(std::equal(qh.q.data<std::int8_t>().begin(), qh.q.data<std::int8_t>().end(), qf.q.data<std::int8_t>().begin()));
  EXPECT_EQ(minmax_scale(Tensor::matrix(3, 3, ElemType::kF32)), 1.0f);  // all zero
  EXPECT_EQ(quantize_per_tensor(row({std::nanf("")}), 1.0f).q.data<std::int8_t>()[0], 0);
  EXPECT_THROW(quantize_per_tensor(test::random_i8(2, 2, 1)), std::invalid_argument);
}

// max_abs keeps eight maxima side by side and quantize_span is vectorized on hosts that allow it:
// both must give the plain loops' results, at every length (tails) and for the special values.
TEST(QuantPerTensor, MaxAbsAndQuantizeSpanAreThePlainLoops) {
  const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
  std::vector<float> v;
  for (int i = 0; i < 61; ++i) v.push_back(static_cast<float>((i * 37) % 23 - 11) * 0.37f);
  v[5] = nan, v[9] = -0.0f, v[17] = 1e30f, v[18] = -1e-30f, v[33] = 3.5f * 0.2f, v[40] = -inf, v[41] = 2.5f * 0.2f;
  const float scale = 0.2f;
  for (std::size_t n = 0; n <= v.size(); ++n) {
    float want = 0;
    for (std::size_t i = 0; i < n; ++i) want = std::max(want, std::fabs(v[i]));
    const float got = max_abs(std::span<const float>(v.data(), n));
    EXPECT_EQ(std::memcmp(&want, &got, sizeof want), 0) << n;
    std::vector<std::int8_t> q(n, 99);
    detail::quantize_span(v.data(), q.data(), n, scale);
    for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(q[i], quantize_value(v[i], scale)) << n << " " << i;
  }
  EXPECT_EQ(max_abs(std::vector<float>{nan, nan}), 0.0f);  // NaN ignored
  EXPECT_EQ(max_abs(std::vector<float>{-3.0f, nan, 2.0f, -inf}), inf);
  EXPECT_EQ(quantize_value(nan, scale), 0);
  EXPECT_EQ(quantize_value(-inf, scale), -127);
  EXPECT_EQ(quantize_value(0.5f * scale, scale), 0);  // ties to even
  EXPECT_EQ(quantize_value(1.5f * scale, scale), 2);
}

}  // namespace
}  // namespace socsim::kernels
