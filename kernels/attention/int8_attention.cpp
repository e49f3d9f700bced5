#include "kernels/attention/int8_attention.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "kernels/attention/head_bands.h"
#include "kernels/attention/int8_ops.h"
#include "kernels/softmax/softmax.h"

namespace socsim::kernels {

// Error bound (header): with q' = q_i8 sQ, |q' - q| <= sQ/2 and likewise for k, v (absmax
// scales never clamp), |q'k' - qk| <= |q| sK/2 + |k| sQ/2 + sQ sK/4, so every dequantized score
// is within delta of the true one and softmax ratios move by at most e^(2 delta). Then
//   sum_j |p'_j - p_j| |v_j| <= maxV (e^(2 delta) - 1),  sum_j p'_j |v'_j - v_j| <= sV / 2,
// and rounding P to multiples of 1/255 adds at most vis / 510 * maxV'.
Tensor attention_int8(const Tensor& q, const Tensor& k, const Tensor& v, std::uint64_t p0, const Int8AttentionOptions& opt,
                      Int8AttentionScales* scales) {
  const AttentionShape s = attention_shape_of(q, k, v, p0);
  const QuantizedI8 qq = quantize_per_tensor_i8(q), kq = quantize_per_tensor_i8(k), vq = quantize_per_tensor_i8(v);
  if (scales) *scales = {qq.scale, kq.scale, vq.scale};
  const Tensor scores = qk_scores_i32(qq.values, kq.values, p0);
  const float dequant = qq.scale * kq.scale * resolve_scale(s, opt.scale);
  const std::uint64_t d = s.head_dim, n = s.keys_used();

  Tensor o(q.shape(), ElemType::kF32);
  auto od = o.data<float>();
  auto vd = vq.values.data<std::int8_t>();
  for_head_bands(s, [&](std::uint64_t h0, std::uint64_t h1) {
    std::vector<float> srow, prow;
    std::vector<std::int32_t> acc(d);
    for (std::uint64_t h = h0; h < h1; ++h) {
      const std::int8_t* vh = vd.data() + s.kv_head_of(h) * s.kv_len * d;
      for (std::uint64_t i = 0; i < s.q_len; ++i) {
        const std::uint64_t r = h * s.q_len + i, vis = s.visible(i);
        const std::int32_t* si = scores.data<std::int32_t>().data() + r * n;
        // Masked positions are -inf in the graph; leaving them out of the row is the same softmax.
        srow.resize(vis);
        prow.resize(vis);
        for (std::uint64_t j = 0; j < vis; ++j) srow[j] = static_cast<float>(si[j]) * dequant;
        softmax_row_f32(srow, prow);
        float* out = od.data() + r * d;
        if (opt.pv == PvPrecision::kInt8) {
          std::fill(acc.begin(), acc.end(), 0);
          for (std::uint64_t j = 0; j < vis; ++j) {
            const auto pu8 = static_cast<std::int32_t>(std::nearbyint(prow[j] * 255.0f));  // in [0, 255]
            if (pu8 == 0) continue;
            for (std::uint64_t c = 0; c < d; ++c) acc[c] += pu8 * static_cast<std::int32_t>(vh[j * d + c]);
          }
          const float deq = vq.scale / 255.0f;
          for (std::uint64_t c = 0; c < d; ++c) out[c] = static_cast<float>(acc[c]) * deq;
        } else {
          std::fill(out, out + d, 0.0f);
          for (std::uint64_t j = 0; j < vis; ++j) {
            for (std::uint64_t c = 0; c < d; ++c) out[c] += prow[j] * (static_cast<float>(vh[j * d + c]) * vq.scale);
          }
        }
      }
    }
  });
  return o;
}

}  // namespace socsim::kernels
