#pragma once
// RMSNorm and LayerNorm over the last dimension of an F32 [rows, hidden] tensor, the `compute`
// face (FP32 arithmetic with FP32 accumulation, as the CPU backends do):
//   RMSNorm:   y = x / sqrt(mean(x^2) + eps) * w
//   LayerNorm: y = (x - mean) / sqrt(var + eps) * w + b, var = mean((x - mean)^2) (two passes,
//              so a large mean does not cancel the variance away)
// `lower` for both is in elementwise_lower.h.
#include <span>

#include "kernels/tensor/tensor.h"

namespace socsim::kernels {

Tensor rms_norm(const Tensor& x, std::span<const float> weight, float eps);
Tensor layer_norm(const Tensor& x, std::span<const float> weight, std::span<const float> bias, float eps);

}  // namespace socsim::kernels
