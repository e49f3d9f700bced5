#include "kernels/attention/sparse_attention.h"

#include <stdexcept>
#include <string>

#include "kernels/attention/attention_core.h"
#include "kernels/attention/head_bands.h"

namespace socsim::kernels {

Tensor sparse_attention_f32(const Tensor& q, const Tensor& k, const Tensor& v, std::uint64_t p0, const RowIndices& idx,
                            std::optional<float> scale) {
  const AttentionShape s = attention_shape_of(q, k, v, p0);
  if (idx.size() != s.heads * s.q_len) {
    throw std::invalid_argument("sparse attention: expected " + std::to_string(s.heads * s.q_len) + " index lists, got " +
                                std::to_string(idx.size()));
  }
  const float sc = resolve_scale(s, scale);
  const std::uint64_t d = s.head_dim;
  Tensor o(q.shape(), ElemType::kF32);
  auto qd = q.data<float>();
  auto kd = k.data<float>(), vd = v.data<float>();
  auto od = o.data<float>();
  // Every index is checked before any is used, so a bad one is reported the same way whatever
  // the threads.
  for (std::uint64_t r = 0; r < s.heads * s.q_len; ++r) {
    const std::uint64_t i = r % s.q_len;
    for (std::int32_t j : idx[r]) {
      if (j < 0 || static_cast<std::uint64_t>(j) >= s.visible(i)) {
        throw std::invalid_argument("sparse attention: key " + std::to_string(j) + " is not visible to query row " +
                                    std::to_string(i) + " (position " + std::to_string(p0 + i) + ")");
      }
    }
  }
  for_head_bands(s, [&](std::uint64_t h0, std::uint64_t h1) {
    RowAttender row;
    for (std::uint64_t h = h0; h < h1; ++h) {
      const std::uint64_t kvh = s.kv_head_of(h);
      for (std::uint64_t i = 0; i < s.q_len; ++i) {
        const std::uint64_t r = h * s.q_len + i;
        row.over_indices(qd.data() + r * d, kd.data() + kvh * s.kv_len * d, vd.data() + kvh * s.kv_len * d, idx[r], d, sc,
                         od.data() + r * d);
      }
    }
  });
  return o;
}

}  // namespace socsim::kernels
