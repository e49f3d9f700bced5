#include "kernels/quant/int8_quant.h"

#include <gtest/gtest.h>

#include <cmath>

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

}  // namespace
}  // namespace socsim::kernels
