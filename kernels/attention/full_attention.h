#pragma once
// Full causal attention in FP32 (the CPU/GPU path, shadowAttn's C/G-Full), `compute` face.
// Q [heads, m, d], K/V [kv_heads, n, d] (attention_shape.h): row i of head h attends to keys
// 0..p0+i of kv head h / group with scores scale * q.k (default scale 1/sqrt(d)), exact
// max-subtracted softmax in FP32. Returns O [heads, m, d] F32.
// `lower` is in attention_lower.h.
#include <optional>

#include "kernels/attention/attention_shape.h"

namespace socsim::kernels {

Tensor attention_f32(const Tensor& q, const Tensor& k, const Tensor& v, std::uint64_t p0, std::optional<float> scale = std::nullopt);

}  // namespace socsim::kernels
