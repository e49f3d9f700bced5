#include "kernels/quant/int8_quant.h"

#include <algorithm>
#include <cmath>
#include <span>
#include <stdexcept>
#include <vector>

#include "kernels/gemm/bulk_convert.h"
#include "kernels/tensor/non_finite.h"

namespace socsim::kernels {

namespace {

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
// Compiled twice like the GEMM micro-kernel: x86-64-v3 (SSE4.1's roundps for nearbyint, AVX2)
// where the host has it, baseline elsewhere. The same operations either way (IEEE division,
// rounding in the current mode, the same comparisons), so the same bytes.
#define SOCSIM_QUANT_CLONES __attribute__((target_clones("arch=x86-64-v3", "default")))
#else
#define SOCSIM_QUANT_CLONES
#endif

// The tensor's values as float32: float32 in place, float16 widened into `scratch`.
std::span<const float> as_float(const Tensor& x, std::vector<float>& scratch) {
  if (x.type() == ElemType::kF32) return x.data<float>();
  if (x.type() == ElemType::kF16) {
    scratch.resize(x.numel());
    widen(x.data<half>().data(), scratch.data(), scratch.size());
    return scratch;
  }
  throw std::invalid_argument(std::string("per-tensor quantization takes f32 or f16, not ") + elem_type_name(x.type()));
}

QuantizedI8 quantize_values(const Tensor& x, std::span<const float> v, float scale) {
  if (!(scale > 0) || !std::isfinite(scale)) throw NonFiniteData("quantization scale must be positive and finite");
  QuantizedI8 out{Tensor(x.shape(), ElemType::kI8), scale};
  detail::quantize_span(v.data(), out.q.data<std::int8_t>().data(), v.size(), scale);
  return out;
}

}  // namespace

namespace detail {

SOCSIM_QUANT_CLONES void quantize_span(const float* v, std::int8_t* q, std::size_t n, float scale) {
  for (std::size_t i = 0; i < n; ++i) q[i] = quantize_value(v[i], scale);
}

}  // namespace detail

// Eight running maxima side by side (one chain was bound by the max's latency): max ignores NaN
// as std::max(m, NaN) does and is order-independent otherwise, so the result is the loop's.
float max_abs(std::span<const float> v) {
  float m[8] = {};
  std::size_t i = 0;
  for (; i + 8 <= v.size(); i += 8) {
    for (int j = 0; j < 8; ++j) m[j] = std::max(m[j], std::fabs(v[i + static_cast<std::size_t>(j)]));
  }
  for (; i < v.size(); ++i) m[0] = std::max(m[0], std::fabs(v[i]));
  float r = 0;
  for (const float x : m) r = std::max(r, x);
  return r;
}

float minmax_scale(const Tensor& x) {
  std::vector<float> scratch;
  const float m = max_abs(as_float(x, scratch));
  return m > 0 ? m / 127.0f : 1.0f;
}

QuantizedI8 quantize_per_tensor(const Tensor& x) {
  std::vector<float> scratch;
  const auto v = as_float(x, scratch);
  const float m = max_abs(v);
  return quantize_values(x, v, m > 0 ? m / 127.0f : 1.0f);
}

QuantizedI8 quantize_per_tensor(const Tensor& x, float scale) {
  std::vector<float> scratch;
  return quantize_values(x, as_float(x, scratch), scale);
}

Tensor dequantize_per_tensor(const Tensor& q, float scale) {
  Tensor y(q.shape(), ElemType::kF32);
  const auto in = q.data<std::int8_t>();
  auto out = y.data<float>();
  for (std::size_t i = 0; i < in.size(); ++i) out[i] = static_cast<float>(in[i]) * scale;
  return y;
}

}  // namespace socsim::kernels
