#include "kernels/elementwise/activation.h"

#include <cmath>
#include <numbers>
#include <stdexcept>

namespace socsim::kernels {

namespace {

template <class F>
Tensor unary(const Tensor& x, F f) {
  if (x.type() != ElemType::kF32) throw std::invalid_argument("activation expects an F32 tensor");
  Tensor y(x.shape(), ElemType::kF32);
  auto in = x.data<float>();
  auto out = y.data<float>();
  for (std::size_t i = 0; i < in.size(); ++i) out[i] = f(in[i]);
  return y;
}

template <class F>
Tensor binary(const Tensor& a, const Tensor& b, F f) {
  if (a.type() != ElemType::kF32 || b.type() != ElemType::kF32) throw std::invalid_argument("elementwise op expects F32 tensors");
  if (a.shape() != b.shape()) throw std::invalid_argument("elementwise op: shapes differ");
  Tensor y(a.shape(), ElemType::kF32);
  auto x = a.data<float>(), z = b.data<float>();
  auto out = y.data<float>();
  for (std::size_t i = 0; i < x.size(); ++i) out[i] = f(x[i], z[i]);
  return y;
}

}  // namespace

Tensor silu(const Tensor& x) {
  // e^-x overflows to inf for x < -88, and x / inf = -0: the right limit, no special case needed.
  return unary(x, [](float v) { return v / (1.0f + std::exp(-v)); });
}

Tensor gelu_erf(const Tensor& x) {
  return unary(x, [](float v) { return 0.5f * v * (1.0f + std::erf(v * static_cast<float>(std::numbers::sqrt2 / 2))); });
}

Tensor gelu_tanh(const Tensor& x) {
  const float k = static_cast<float>(std::sqrt(2.0 / std::numbers::pi));
  return unary(x, [k](float v) { return 0.5f * v * (1.0f + std::tanh(k * (v + 0.044715f * v * v * v))); });
}

Tensor residual_add(const Tensor& a, const Tensor& b) {
  return binary(a, b, [](float u, float v) { return u + v; });
}

Tensor gate_mul(const Tensor& a, const Tensor& b) {
  return binary(a, b, [](float u, float v) { return u * v; });
}

}  // namespace socsim::kernels
