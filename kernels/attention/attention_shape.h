#pragma once
// Shapes shared by the attention kernels.
//
// Layout (functional mode): Q and O are [heads, m, d], K and V are [kv_heads, n, d], all row
// major. Query row i sits at position p0 + i and sees keys 0..p0+i (causal); keys at positions
// >= p0 + m are in every query's future, so n > p0 + m is allowed and those keys are never read.
// GQA: query head h reads kv head h / (heads / kv_heads).
#include <cstdint>
#include <optional>

#include "kernels/tensor/tensor.h"

namespace socsim::kernels {

struct AttentionShape {
  std::uint64_t heads = 0, kv_heads = 0, head_dim = 0;
  std::uint64_t q_len = 0;   // m
  std::uint64_t q_pos0 = 0;  // p0
  std::uint64_t kv_len = 0;  // n >= p0 + m

  std::uint64_t group() const { return heads / kv_heads; }
  std::uint64_t kv_head_of(std::uint64_t h) const { return h / group(); }
  // Keys row i sees: p0 + i + 1.
  std::uint64_t visible(std::uint64_t row) const { return q_pos0 + row + 1; }
  // Sum of visible() over the m rows: m p0 + m (m + 1) / 2.
  std::uint64_t visible_total() const { return q_len * q_pos0 + q_len * (q_len + 1) / 2; }
  // Keys any query reads: p0 + m.
  std::uint64_t keys_used() const { return q_pos0 + q_len; }
  float default_scale() const;

  // Throws std::invalid_argument for empty dims, heads not a multiple of kv_heads, n < p0 + m.
  void validate() const;
};

// Shape of F32 Q [heads, m, d], K/V [kv_heads, n, d] with queries starting at p0; checks the
// tensors agree with each other.
AttentionShape attention_shape_of(const Tensor& q, const Tensor& k, const Tensor& v, std::uint64_t p0,
                                  ElemType type = ElemType::kF32);

inline float resolve_scale(const AttentionShape& s, std::optional<float> scale) { return scale ? *scale : s.default_scale(); }

}  // namespace socsim::kernels
