#pragma once
// Per-tensor symmetric min-max INT8, llm.npu's W8A8 scheme: scale = max|x| / 127 (or a scale fixed
// offline, which is then the outlier threshold of outliers.h), q = clamp(round(x / scale), -127, 127).
// Rounding is to nearest with ties to even (std::nearbyint in the default rounding mode), the
// quotient is an IEEE float division. -128 is never produced, so the range is symmetric and
// |dequantize(q) - x| <= scale / 2 for every |x| <= 127 * scale (up to the quotient's rounding).
// NaN quantizes to 0.
#include <cmath>
#include <cstdint>
#include <span>

#include "kernels/tensor/tensor.h"

namespace socsim::kernels {

struct QuantizedI8 {
  Tensor q;          // int8, the input's shape
  float scale = 1;   // x ~ q * scale
};

// max|x| over v, NaN ignored (0 for an empty or all-NaN span).
float max_abs(std::span<const float> v);

namespace detail {
// q[i] = quantize_value(v[i], scale) for i < n (vectorized where the host allows).
void quantize_span(const float* v, std::int8_t* q, std::size_t n, float scale);
}  // namespace detail

// max|x| / 127 over a float32 or float16 tensor; 1 for an all-zero (or empty) tensor so that the
// scale is always usable as a divisor.
float minmax_scale(const Tensor& x);

// Quantizes a float32 or float16 tensor with its min-max scale, or with `scale` (> 0).
QuantizedI8 quantize_per_tensor(const Tensor& x);
QuantizedI8 quantize_per_tensor(const Tensor& x, float scale);

// float32 tensor of q * scale.
Tensor dequantize_per_tensor(const Tensor& q, float scale);

// The quantization of one value, shared with the kernels that quantize on the fly.
inline std::int8_t quantize_value(float x, float scale) {
  const float v = std::nearbyint(x / scale);
  if (std::isnan(v)) return 0;
  return static_cast<std::int8_t>(v > 127.0f ? 127.0f : (v < -127.0f ? -127.0f : v));
}

}  // namespace socsim::kernels
