#include "kernels/quant/int8_quant.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <vector>

#include "kernels/gemm/bulk_convert.h"

namespace socsim::kernels {

namespace {

// The tensor's values as float32 (a copy for float16 input: quantization is not a hot path).
std::vector<float> as_float(const Tensor& x) {
  std::vector<float> v(x.numel());
  if (x.type() == ElemType::kF32) {
    const auto d = x.data<float>();
    std::copy(d.begin(), d.end(), v.begin());
  } else if (x.type() == ElemType::kF16) {
    widen(x.data<half>().data(), v.data(), v.size());
  } else {
    throw std::invalid_argument(std::string("per-tensor quantization takes f32 or f16, not ") + elem_type_name(x.type()));
  }
  return v;
}

float max_abs(const std::vector<float>& v) {
  float m = 0;
  for (float x : v) m = std::max(m, std::fabs(x));
  return m;
}

QuantizedI8 quantize_values(const Tensor& x, const std::vector<float>& v, float scale) {
  if (!(scale > 0) || !std::isfinite(scale)) throw std::invalid_argument("quantization scale must be positive and finite");
  QuantizedI8 out{Tensor(x.shape(), ElemType::kI8), scale};
  auto q = out.q.data<std::int8_t>();
  for (std::size_t i = 0; i < v.size(); ++i) q[i] = quantize_value(v[i], scale);
  return out;
}

}  // namespace

float minmax_scale(const Tensor& x) {
  const float m = max_abs(as_float(x));
  return m > 0 ? m / 127.0f : 1.0f;
}

QuantizedI8 quantize_per_tensor(const Tensor& x) {
  const auto v = as_float(x);
  const float m = max_abs(v);
  return quantize_values(x, v, m > 0 ? m / 127.0f : 1.0f);
}

QuantizedI8 quantize_per_tensor(const Tensor& x, float scale) { return quantize_values(x, as_float(x), scale); }

Tensor dequantize_per_tensor(const Tensor& q, float scale) {
  Tensor y(q.shape(), ElemType::kF32);
  const auto in = q.data<std::int8_t>();
  auto out = y.data<float>();
  for (std::size_t i = 0; i < in.size(); ++i) out[i] = static_cast<float>(in[i]) * scale;
  return y;
}

}  // namespace socsim::kernels
