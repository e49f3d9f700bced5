#pragma once
// Shared helpers of the attention tests: random Q/K/V in the kernels' layout and a plain double
// reference of causal GQA attention.
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "kernels/attention/attention_shape.h"

namespace socsim::kernels::test {

struct AttnData {
  Tensor q, k, v;
  AttentionShape s;
};

inline AttnData make_attn(std::uint64_t heads, std::uint64_t kv_heads, std::uint64_t m, std::uint64_t p0, std::uint64_t d,
                          unsigned seed, float sigma = 1.0f, std::uint64_t extra_keys = 0) {
  AttnData a;
  a.s = {heads, kv_heads, d, m, p0, p0 + m + extra_keys};
  auto i = [](std::uint64_t x) { return static_cast<std::int64_t>(x); };
  a.q = Tensor({i(heads), i(m), i(d)}, ElemType::kF32);
  a.k = Tensor({i(kv_heads), i(a.s.kv_len), i(d)}, ElemType::kF32);
  a.v = Tensor({i(kv_heads), i(a.s.kv_len), i(d)}, ElemType::kF32);
  std::mt19937 rng(seed);
  std::normal_distribution<float> n(0.0f, sigma);
  for (Tensor* t : {&a.q, &a.k, &a.v}) {
    for (float& x : t->data<float>()) x = n(rng);
  }
  return a;
}

// out[(h m + i) d + c], keys 0..p0+i, scores scale q.k, all in double.
inline std::vector<double> ref_attention(const AttnData& a, double scale) {
  const auto& s = a.s;
  const std::uint64_t d = s.head_dim;
  std::vector<double> out(s.heads * s.q_len * d, 0.0);
  for (std::uint64_t h = 0; h < s.heads; ++h) {
    const std::uint64_t g = h / (s.heads / s.kv_heads);
    for (std::uint64_t i = 0; i < s.q_len; ++i) {
      const std::uint64_t vis = s.q_pos0 + i + 1;
      std::vector<double> sc(vis);
      double mx = -INFINITY;
      for (std::uint64_t j = 0; j < vis; ++j) {
        double acc = 0;
        for (std::uint64_t t = 0; t < d; ++t) {
          acc += double(a.q.data<float>()[(h * s.q_len + i) * d + t]) * a.k.data<float>()[(g * s.kv_len + j) * d + t];
        }
        sc[j] = scale * acc;
        mx = std::max(mx, sc[j]);
      }
      double sum = 0;
      for (auto& x : sc) sum += x = std::exp(x - mx);
      for (std::uint64_t j = 0; j < vis; ++j) {
        for (std::uint64_t c = 0; c < d; ++c) out[(h * s.q_len + i) * d + c] += sc[j] / sum * a.v.data<float>()[(g * s.kv_len + j) * d + c];
      }
    }
  }
  return out;
}

inline double max_abs(const Tensor& t) {
  double m = 0;
  for (float x : t.data<float>()) m = std::max(m, std::fabs(double(x)));
  return m;
}

}  // namespace socsim::kernels::test
