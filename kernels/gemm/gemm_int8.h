#pragma once
// W8A8 per-tensor GEMM (llm.npu's NPU-friendly linear layer): INT8 x INT8 -> INT32, exact, then
// dequantized to float with the activation and weight scales. The `lower` faces are in
// gemm_lower.h (NPU: one static-graph HMX INT8 GEMM; CPU and GPU: int8 arithmetic).
#include "kernels/gemm/gemm_dims.h"
#include "kernels/tensor/tensor.h"

namespace socsim::kernels {

// Largest k for which every INT32 result is exact: |a w| <= 2^14, so k * 2^14 < 2^31.
inline constexpr std::int64_t kGemmI8MaxK = (std::int64_t{1} << 31) / (std::int64_t{1} << 14) - 1;

// C[m x n] (int32) = A[m x k] (int8) * W[k x n] (int8), both row-major. Exact: depth blocks of 256
// accumulate exactly in FP32 (packed_gemm.h) and are added in INT32. Throws for k > kGemmI8MaxK.
Tensor gemm_i8(const Tensor& a, const Tensor& w, unsigned threads = default_gemm_threads());

// Y = float(C) * (a_scale * w_scale), the scale product rounded to float first: the per-tensor
// W8A8 output (the scale HMX applies as it drains the accumulator).
Tensor dequantize_i32(const Tensor& c, float a_scale, float w_scale);

}  // namespace socsim::kernels
