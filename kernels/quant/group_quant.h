#pragma once
// Per-group INT8 weights (K-Quant/AWQ-style accuracy that llm.npu says NPUs cannot run natively):
// W[k x n] is cut along k into groups of `group` rows; every group has its own scale for every
// output column, s[g][j] = max over the group of |W[k][j]| / 127 (1 for an all-zero group), and
// q = clamp(round(W / s), -127, 127) with the rounding of int8_quant.h. The last group may be short.
#include <cstdint>

#include "kernels/tensor/tensor.h"

namespace socsim::kernels {

struct GroupQuantizedI8 {
  Tensor q;                 // int8 [k x n]
  Tensor scales;            // float32 [ceil(k / group) x n]
  std::int64_t group = 0;   // rows of W per group

  std::int64_t k() const { return q.dim(0); }
  std::int64_t n() const { return q.dim(1); }
  std::int64_t groups() const { return scales.dim(0); }
};

// Quantizes a float32 W[k x n] with groups of `group` (>= 1) rows.
GroupQuantizedI8 quantize_per_group(const Tensor& w, std::int64_t group);

// float32 [k x n] of q * s[group of k][j].
Tensor dequantize_per_group(const GroupQuantizedI8& w);

}  // namespace socsim::kernels
