#include "kernels/attention/int8_ops.h"

#include <algorithm>
#include <cmath>

#include "kernels/attention/head_bands.h"

namespace socsim::kernels {

float absmax_scale_i8(std::span<const float> x) {
  float m = 0;
  for (float v : x) m = std::max(m, std::fabs(v));
  return m > 0 ? m / 127.0f : 1.0f;
}

std::int8_t quantize_i8(float x, float scale) {
  // nearbyint rounds half to even in the default rounding mode; the clamp only matters for
  // values a given (not measured) scale cannot reach.
  const float q = std::nearbyint(x / scale);
  return static_cast<std::int8_t>(std::clamp(q, -127.0f, 127.0f));
}

QuantizedI8 quantize_per_tensor_i8(const Tensor& x) {
  QuantizedI8 out{Tensor(x.shape(), ElemType::kI8), absmax_scale_i8(x.data<float>())};
  auto in = x.data<float>();
  auto q = out.values.data<std::int8_t>();
  for (std::size_t i = 0; i < in.size(); ++i) q[i] = quantize_i8(in[i], out.scale);
  return out;
}

std::int32_t dot_i8(const std::int8_t* a, const std::int8_t* b, std::uint64_t d) {
  std::int32_t acc = 0;
  for (std::uint64_t t = 0; t < d; ++t) acc += static_cast<std::int32_t>(a[t]) * static_cast<std::int32_t>(b[t]);
  return acc;
}

Tensor qk_scores_i32(const Tensor& q, const Tensor& k, std::uint64_t p0) {
  const AttentionShape s = attention_shape_of(q, k, k, p0, ElemType::kI8);
  const std::uint64_t d = s.head_dim, n = s.keys_used();
  Tensor out({static_cast<std::int64_t>(s.heads), static_cast<std::int64_t>(s.q_len), static_cast<std::int64_t>(n)}, ElemType::kI32);
  auto qd = q.data<std::int8_t>();
  auto kd = k.data<std::int8_t>();
  auto od = out.data<std::int32_t>();
  for_head_bands(s, [&](std::uint64_t h0, std::uint64_t h1) {
    for (std::uint64_t h = h0; h < h1; ++h) {
      const std::int8_t* kh = kd.data() + s.kv_head_of(h) * s.kv_len * d;
      for (std::uint64_t i = 0; i < s.q_len; ++i) {
        const std::int8_t* qi = qd.data() + (h * s.q_len + i) * d;
        for (std::uint64_t j = 0; j < n; ++j) od[(h * s.q_len + i) * n + j] = dot_i8(qi, kh + j * d, d);
      }
    }
  });
  return out;
}

}  // namespace socsim::kernels
