#pragma once
// The small INT8 pieces the NPU attention paths need, kept inside kernels/attention (plain loops;
// the GEMM family lives in kernels/gemm and is not a dependency of attention).
//
// Per-tensor symmetric quantization: scale = absmax / 127 (1 for an all-zero tensor),
// q = round-half-even(x / scale) clamped to [-127, 127]; x ~ q * scale with |error| <= scale / 2.
#include <cstdint>
#include <span>

#include "kernels/attention/attention_shape.h"

namespace socsim::kernels {

struct QuantizedI8 {
  Tensor values;  // I8, same shape as the input
  float scale = 1;
};

float absmax_scale_i8(std::span<const float> x);
std::int8_t quantize_i8(float x, float scale);
QuantizedI8 quantize_per_tensor_i8(const Tensor& x);

std::int32_t dot_i8(const std::int8_t* a, const std::int8_t* b, std::uint64_t d);

// Dense Q.K^T in INT32, as the NPU computes it (every query against every used key, no mask):
// q [heads, m, d] I8, k [kv_heads, n, d] I8 -> [heads, m, p0 + m] I32. This is also shadowAttn's
// estimation output, fed raw to top-k.
Tensor qk_scores_i32(const Tensor& q, const Tensor& k, std::uint64_t p0);

}  // namespace socsim::kernels
