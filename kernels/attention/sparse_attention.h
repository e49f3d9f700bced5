#pragma once
// Sparse attention over given key indices per query row, FP32 (shadowAttn's second stage:
// exact attention over the top-k positions the estimation picked), `compute` face.
// `idx` holds heads * m lists; list h * m + i names the keys row i of head h attends to, each
// causally visible (< p0 + i + 1) and distinct; order does not matter. Scores, softmax and the
// weighted sum are exactly those of attention_f32 restricted to the listed keys, so listing every
// visible key reproduces full attention. An empty list gives a zero row.
// `lower` is in attention_lower.h.
#include <optional>

#include "kernels/attention/attention_shape.h"
#include "kernels/topk/topk.h"

namespace socsim::kernels {

Tensor sparse_attention_f32(const Tensor& q, const Tensor& k, const Tensor& v, std::uint64_t p0, const RowIndices& idx,
                            std::optional<float> scale = std::nullopt);

}  // namespace socsim::kernels
