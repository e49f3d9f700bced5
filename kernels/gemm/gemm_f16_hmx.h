#pragma once
// FP16 GEMM on operands in the HMX tile layout (hmx_layout.h), the `compute` face of the HMX FP16
// matmul (its `lower` face is lower_gemm_f16_hmx_npu in gemm_lower_npu.h).
//
// Numerics, as HMX does it: products of FP16 values are exact in FP32; each output tile's
// accumulator is FP32 and takes the 32x32x32 tile products of its k tiles in order, every element
// summing over k ascending; the accumulator is rounded to FP16 (nearest even) once, when the
// finished tile is emitted. That single rounding is the only one. The result is bit-identical to
//   for each (i, j): float s = 0; for k ascending: s += float(a[i][k]) * float(w[k][j]); c = half(s)
// and, against an FP64 reference, |c - c_exact| <= 2^-11 |c_exact| + (1 + 2^-11) g_k sum_k |a w|
// with g_k = k 2^-24 / (1 - k 2^-24), while c is a normal FP16 value (gemm_float.h).
#include "kernels/gemm/gemm_dims.h"
#include "kernels/gemm/hmx_layout.h"

namespace socsim::kernels {

// C[m x n] = A[m x k] * W[k x n]. A in either tile order, W in either (weights are normally
// column-major tiles), C comes back in row-major tile order. Padding does not enter the result.
HmxTiled gemm_f16_hmx(const HmxTiled& a, const HmxTiled& w, unsigned threads = default_gemm_threads());

}  // namespace socsim::kernels
