// INT8 attention: quantization and INT32 scores exactly against plain loops; the output against
// the double FP32 reference within the bound stated in int8_attention.h, both PV precisions.
#include <gtest/gtest.h>

#include <cmath>

#include "kernels/attention/int8_attention.h"
#include "kernels/attention/int8_ops.h"
#include "tests/unit/kernels/attention/attention_test_util.h"

namespace socsim::kernels {
namespace {

TEST(AttentionInt8, PerTensorQuantization) {
  Tensor x = Tensor::matrix(1, 5, ElemType::kF32);
  const float v[5] = {-2.54f, 0.0f, 1.0f, 0.004f, 2.0f};
  std::copy(v, v + 5, x.data<float>().begin());
  const auto q = quantize_per_tensor_i8(x);
  EXPECT_FLOAT_EQ(q.scale, 2.54f / 127);
  const std::int8_t want[5] = {-127, 0, 50, 0, 100};
  for (int i = 0; i < 5; ++i) {
    EXPECT_EQ(q.values.data<std::int8_t>()[i], want[i]) << i;
    EXPECT_LE(std::fabs(q.values.data<std::int8_t>()[i] * q.scale - v[i]), q.scale / 2 * 1.0001f);
  }
  EXPECT_EQ(quantize_i8(1000.0f, 1.0f), 127);  // a given scale saturates
  EXPECT_EQ(quantize_i8(2.5f, 1.0f), 2);       // half to even
  Tensor z = Tensor::matrix(2, 2, ElemType::kF32);
  EXPECT_EQ(quantize_per_tensor_i8(z).scale, 1.0f);
}

TEST(AttentionInt8, ScoresAreExactIntegers) {
  const auto a = test::make_attn(14, 2, 5, 27, 64, 3);  // GQA 7
  const auto qq = quantize_per_tensor_i8(a.q), kq = quantize_per_tensor_i8(a.k);
  const Tensor s = qk_scores_i32(qq.values, kq.values, 27);
  ASSERT_EQ(s.shape(), (std::vector<std::int64_t>{14, 5, 32}));  // dense over p0 + m keys
  for (int h = 0; h < 14; ++h) {
    for (int i = 0; i < 5; ++i) {
      for (int j = 0; j < 32; ++j) {
        std::int64_t acc = 0;
        for (int t = 0; t < 64; ++t) acc += qq.values.data<std::int8_t>()[(h * 5 + i) * 64 + t] * kq.values.data<std::int8_t>()[((h / 7) * 32 + j) * 64 + t];
        ASSERT_EQ(s.data<std::int32_t>()[(h * 5 + i) * 32 + j], acc);
      }
    }
  }
}

// Checks |o' - o| against the header's bound for every element; returns the worst error / max|v|.
double check_bound(const test::AttnData& a, PvPrecision pv) {
  Int8AttentionScales sc;
  const Tensor o = attention_int8(a.q, a.k, a.v, a.s.q_pos0, {pv, std::nullopt}, &sc);
  const auto want = test::ref_attention(a, 1 / std::sqrt(double(a.s.head_dim)));
  const auto& s = a.s;
  const std::uint64_t d = s.head_dim;
  const double scale = 1 / std::sqrt(double(d));
  double worst = 0;
  for (std::uint64_t h = 0; h < s.heads; ++h) {
    const std::uint64_t g = s.kv_head_of(h);
    for (std::uint64_t i = 0; i < s.q_len; ++i) {
      const std::uint64_t vis = s.visible(i);
      double delta = 0;
      for (std::uint64_t j = 0; j < vis; ++j) {
        double e = 0;
        for (std::uint64_t t = 0; t < d; ++t) {
          e += std::fabs(a.q.data<float>()[(h * s.q_len + i) * d + t]) * sc.k / 2 + std::fabs(a.k.data<float>()[(g * s.kv_len + j) * d + t]) * sc.q / 2 +
               sc.q * sc.k / 4;
        }
        delta = std::max(delta, scale * e * (1 + 1e-5));
      }
      for (std::uint64_t c = 0; c < d; ++c) {
        double maxv = 0;
        for (std::uint64_t j = 0; j < vis; ++j) maxv = std::max(maxv, std::fabs(double(a.v.data<float>()[(g * s.kv_len + j) * d + c])));
        const double maxv_q = maxv + sc.v / 2;
        double bound = maxv * std::expm1(2 * delta) + sc.v / 2 + 1e-5 * maxv;
        if (pv == PvPrecision::kInt8) bound += double(vis) / 510 * maxv_q;
        const std::uint64_t e = (h * s.q_len + i) * d + c;
        const double err = std::fabs(o.data<float>()[e] - want[e]);
        EXPECT_LE(err, bound) << "h" << h << " i" << i << " c" << c;
        worst = std::max(worst, err);
      }
    }
  }
  return worst / test::max_abs(a.v);
}

TEST(AttentionInt8, WithinBoundInt8AndFloatPv) {
  for (auto [heads, kvh, m, p0, d] : {std::tuple<int, int, int, int, int>{14, 2, 5, 60, 64}, {12, 2, 33, 0, 80}, {1, 1, 1, 0, 64}}) {
    const auto a = test::make_attn(heads, kvh, m, p0, d, 77u + static_cast<unsigned>(m));
    const double e8 = check_bound(a, PvPrecision::kInt8), ef = check_bound(a, PvPrecision::kFloat);
    EXPECT_LT(ef, 0.1) << m;   // float PV: only the Q/K/V quantization
    EXPECT_LT(e8, 0.25) << m;  // P on a 1/255 grid on top
  }
}

TEST(AttentionInt8, QuantizedPLosesFlatRows) {
  // 600 equal scores: every p = 1/600 < 1/510 rounds to 0 in UINT8, so the INT8 output collapses
  // to zero while float PV returns the mean of V: the failure that motivates shadowAttn.
  auto a = test::make_attn(1, 1, 1, 599, 8, 5);
  for (float& x : a.q.data<float>()) x = 0;
  const Tensor o8 = attention_int8(a.q, a.k, a.v, 599, {PvPrecision::kInt8, std::nullopt});
  const Tensor of = attention_int8(a.q, a.k, a.v, 599, {PvPrecision::kFloat, std::nullopt});
  const auto want = test::ref_attention(a, 1 / std::sqrt(8.0));
  for (int c = 0; c < 8; ++c) {
    EXPECT_EQ(o8.data<float>()[c], 0.0f);
    EXPECT_NEAR(of.data<float>()[c], want[c], 0.02);
  }
}

}  // namespace
}  // namespace socsim::kernels
