#include "kernels/attention/full_attention.h"

#include "kernels/attention/attention_core.h"
#include "kernels/attention/head_bands.h"

namespace socsim::kernels {

Tensor attention_f32(const Tensor& q, const Tensor& k, const Tensor& v, std::uint64_t p0, std::optional<float> scale) {
  const AttentionShape s = attention_shape_of(q, k, v, p0);
  const float sc = resolve_scale(s, scale);
  const std::uint64_t d = s.head_dim;
  Tensor o(q.shape(), ElemType::kF32);
  auto qd = q.data<float>();
  auto kd = k.data<float>(), vd = v.data<float>();
  auto od = o.data<float>();
  for_head_bands(s, [&](std::uint64_t h0, std::uint64_t h1) {
    RowAttender row;
    for (std::uint64_t h = h0; h < h1; ++h) {
      const std::uint64_t kvh = s.kv_head_of(h);
      const float* kh = kd.data() + kvh * s.kv_len * d;
      const float* vh = vd.data() + kvh * s.kv_len * d;
      for (std::uint64_t i = 0; i < s.q_len; ++i) {
        const std::uint64_t r = h * s.q_len + i;
        row.over_prefix(qd.data() + r * d, kh, vh, s.visible(i), d, sc, od.data() + r * d);
      }
    }
  });
  return o;
}

}  // namespace socsim::kernels
