// FlashAttention (FP16 tiles, online rescaling) against the double FP32 reference, with the
// element-wise bound of flash_attention.h computed here from the data, for each exp variant and
// both tile sizes, on odd shapes.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdio>

#include "kernels/attention/flash_attention.h"
#include "kernels/softmax/poly_exp2.h"
#include "tests/unit/kernels/attention/attention_test_util.h"

namespace socsim::kernels {
namespace {

constexpr double kU = 1.0 / 2048;

// Relative error of the exp variant at x <= 0 (its absolute underflow part is in the n 2^-24 term).
double eps_exp(ExpVariant v, double x) {
  if (v == ExpVariant::kPoly) return (exp_poly_error_bound(x) - std::ldexp(1.0, -25)) / std::exp(x);
  return kU * 1.001;
}

struct Result {
  double worst_ratio = 0, worst_err = 0;  // error / bound, error / max|v|
};

Result check(const test::AttnData& a, const FlashParams& p) {
  const LutExpTable lut;
  const Tensor o = flash_attention(a.q, a.k, a.v, a.s.q_pos0, p, &lut);
  const auto want = test::ref_attention(a, 1 / std::sqrt(double(a.s.head_dim)));
  const auto& s = a.s;
  const std::uint64_t d = s.head_dim;
  const double scale = 1 / std::sqrt(double(d));
  Result res;
  for (std::uint64_t h = 0; h < s.heads; ++h) {
    const std::uint64_t g = s.kv_head_of(h);
    for (std::uint64_t i = 0; i < s.q_len; ++i) {
      const std::uint64_t vis = s.visible(i), tiles = (vis + p.kv_tile - 1) / p.kv_tile;
      std::vector<double> sc(vis), err1(vis);
      double smax = -INFINITY, dmax = 0;
      for (std::uint64_t j = 0; j < vis; ++j) {
        double acc = 0, mag = 0;
        for (std::uint64_t t = 0; t < d; ++t) {
          const double x = a.q.data<float>()[(h * s.q_len + i) * d + t], y = a.k.data<float>()[(g * s.kv_len + j) * d + t];
          acc += x * y;
          mag += std::fabs(x * y);
        }
        sc[j] = scale * acc;
        err1[j] = scale * mag * (2 * kU + kU * kU + double(d) * std::ldexp(1.0, -24)) + std::fabs(sc[j]) * kU;  // q, k, S rounding
        smax = std::max(smax, sc[j]);
        dmax = std::max(dmax, err1[j]);
      }
      // Rescale error: every tile after the first may move the running max by dm (+ 2 dmax).
      double resc = 0, run = -INFINITY;
      for (std::uint64_t t = 0; t < tiles; ++t) {
        double tm = -INFINITY;
        for (std::uint64_t j = t * p.kv_tile; j < std::min(vis, (t + 1) * p.kv_tile); ++j) tm = std::max(tm, sc[j]);
        if (t > 0) {
          const double dm = std::max(0.0, tm - run) + 2 * dmax;
          resc += dm * kU + eps_exp(p.exp, -dm);
        }
        run = std::max(run, tm);
      }
      double sum = 0;
      std::vector<double> pj(vis), delta(vis);
      for (std::uint64_t j = 0; j < vis; ++j) sum += pj[j] = std::exp(sc[j] - smax);
      double S = 0;
      for (std::uint64_t j = 0; j < vis; ++j) {
        pj[j] /= sum;
        const double dj = sc[j] - smax - 2 * dmax;
        delta[j] = err1[j] + std::fabs(dj) * kU * (1 + kU) + eps_exp(p.exp, dj) + resc;
        S += pj[j] * std::expm1(delta[j]);
      }
      for (std::uint64_t c = 0; c < d; ++c) {
        double b = 0, maxv = 0;
        for (std::uint64_t j = 0; j < vis; ++j) {
          const double v = std::fabs(double(a.v.data<float>()[(g * s.kv_len + j) * d + c]));
          const double r = std::max(std::exp(delta[j]) / (1 - S) - 1, 1 - std::exp(-delta[j]) / (1 + S));
          b += pj[j] * r * v;
          maxv = std::max(maxv, v);
        }
        b = 1.01 * (b + (kU * (1 + 3 * double(tiles)) + 3 * double(vis) * std::ldexp(1.0, -24)) * maxv);
        const std::uint64_t e = (h * s.q_len + i) * d + c;
        const double err = std::fabs(o.data<float>()[e] - want[e]);
        EXPECT_LE(err, b) << exp_variant_name(p.exp) << " h" << h << " i" << i << " c" << c;
        res.worst_ratio = std::max(res.worst_ratio, err / b);
        res.worst_err = std::max(res.worst_err, err);
      }
    }
  }
  res.worst_err /= test::max_abs(a.v);
  std::printf("  flash %s Bc=%u %llux%llu p0=%llu d=%llu: max err %.2e of max|v|, %.2f of the bound\n", exp_variant_name(p.exp), p.kv_tile,
              static_cast<unsigned long long>(s.heads), static_cast<unsigned long long>(s.q_len),
              static_cast<unsigned long long>(s.q_pos0), static_cast<unsigned long long>(d), res.worst_err, res.worst_ratio);
  return res;
}

TEST(AttentionFlash, LutMatchesFullAttention) {
  EXPECT_LT(check(test::make_attn(2, 2, 37, 0, 64, 1), {64, 32, ExpVariant::kLut}).worst_err, 3e-3);
  EXPECT_LT(check(test::make_attn(14, 2, 5, 60, 64, 2), {32, 32, ExpVariant::kLut}).worst_err, 3e-3);  // GQA 7
  EXPECT_LT(check(test::make_attn(4, 4, 1, 0, 80, 3), {32, 32, ExpVariant::kLut}).worst_err, 3e-3);   // kv length 1
  EXPECT_LT(check(test::make_attn(12, 2, 70, 130, 80, 4, 1.5f), {64, 32, ExpVariant::kLut}).worst_err, 3e-3);  // GQA 6
}

TEST(AttentionFlash, PolyMatchesFullAttention) {
  EXPECT_LT(check(test::make_attn(14, 2, 5, 60, 64, 5), {64, 32, ExpVariant::kPoly}).worst_err, 1e-2);
  EXPECT_LT(check(test::make_attn(2, 1, 33, 3, 80, 6, 1.5f), {32, 32, ExpVariant::kPoly}).worst_err, 1e-2);
}

TEST(AttentionFlash, ExactExpMatchesFullAttention) {
  EXPECT_LT(check(test::make_attn(12, 2, 33, 3, 80, 7), {64, 32, ExpVariant::kExact}).worst_err, 3e-3);
  EXPECT_LT(check(test::make_attn(2, 2, 65, 0, 64, 8), {32, 64, ExpVariant::kExact}).worst_err, 3e-3);  // 64-row blocks
}

TEST(AttentionFlash, Fp16InputsAndParams) {
  const auto a = test::make_attn(2, 1, 9, 4, 16, 9);
  Tensor q16(a.q.shape(), ElemType::kF16), k16(a.k.shape(), ElemType::kF16), v16(a.v.shape(), ElemType::kF16);
  for (auto [src, dst] : {std::pair{&a.q, &q16}, {&a.k, &k16}, {&a.v, &v16}}) {
    for (std::size_t i = 0; i < src->numel(); ++i) dst->data<half>()[i] = to_half(src->data<float>()[i]);
  }
  const Tensor o32 = flash_attention(a.q, a.k, a.v, 4, {32, 32, ExpVariant::kPoly});
  const Tensor o16 = flash_attention(q16, k16, v16, 4, {32, 32, ExpVariant::kPoly});
  for (std::size_t i = 0; i < o32.numel(); ++i) EXPECT_EQ(o32.data<float>()[i], o16.data<float>()[i]);  // F32 inputs are rounded to FP16 first
  EXPECT_THROW(flash_attention(a.q, a.k, a.v, 4, {48, 32, ExpVariant::kLut}), std::invalid_argument);
  EXPECT_NO_THROW(flash_attention(a.q, a.k, a.v, 4, {64, 32, ExpVariant::kLut}));  // builds its own LUT
}

// The F16C build the host runs and the baseline build agree bit for bit (every exp variant,
// both tile sizes, FP32 and FP16 inputs; skipped on hosts without F16C, which run the baseline).
TEST(AttentionFlash, F16cBuildMatchesTheBaselineBitForBit) {
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
  if (!__builtin_cpu_supports("f16c")) GTEST_SKIP() << "no F16C on this host: only the baseline build runs";
#endif
  const LutExpTable lut;
  const auto to_f16 = [](const Tensor& t) {
    Tensor h(t.shape(), ElemType::kF16);
    for (std::size_t i = 0; i < t.numel(); ++i) h.data<half>()[i] = to_half(t.data<float>()[i]);
    return h;
  };
  for (const ExpVariant e : {ExpVariant::kLut, ExpVariant::kPoly, ExpVariant::kExact}) {
    for (const std::uint32_t tile : {32u, 64u}) {
      for (const bool f16_inputs : {false, true}) {
        auto a = test::make_attn(6, 2, 45, 19, 64, 11 + tile, 1.5f);
        if (f16_inputs) a.q = to_f16(a.q), a.k = to_f16(a.k), a.v = to_f16(a.v);
        const FlashParams p{tile, 32, e};
        const Tensor fast = flash_attention(a.q, a.k, a.v, a.s.q_pos0, p, &lut);
        const Tensor base = flash_attention_baseline(a.q, a.k, a.v, a.s.q_pos0, p, &lut);
        ASSERT_EQ(fast.numel(), base.numel());
        for (std::size_t i = 0; i < fast.numel(); ++i) {
          ASSERT_EQ(std::bit_cast<std::uint32_t>(fast.data<float>()[i]), std::bit_cast<std::uint32_t>(base.data<float>()[i]))
              << "element " << i << ", exp variant " << static_cast<int>(e) << ", tile " << tile << ", f16 inputs " << f16_inputs;
        }
      }
    }
  }
}

}  // namespace
}  // namespace socsim::kernels
