#pragma once
// Pointwise activations and the two binary elementwise ops of a decoder layer, the `compute`
// face on F32 tensors of any shape:
//   silu(x)      = x / (1 + e^-x)
//   gelu_erf(x)  = x/2 (1 + erf(x / sqrt 2))                         (exact GELU)
//   gelu_tanh(x) = x/2 (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))    (GPT-2 / phi approximation)
//   residual_add(a, b) = a + b;  gate_mul(a, b) = a * b (SwiGLU's silu(gate) * up)
// `lower` is in elementwise_lower.h.
#include "kernels/tensor/tensor.h"

namespace socsim::kernels {

Tensor silu(const Tensor& x);
Tensor gelu_erf(const Tensor& x);
Tensor gelu_tanh(const Tensor& x);
Tensor residual_add(const Tensor& a, const Tensor& b);
Tensor gate_mul(const Tensor& a, const Tensor& b);

}  // namespace socsim::kernels
