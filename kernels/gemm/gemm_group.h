#pragma once
// Per-group quantized GEMM done the NPU way (llm.npu 2.3: NPUs have no per-group matmul, so it is
// split): K is cut into the weight's groups, each group is its own INT8 x INT8 -> INT32 sub-GEMM,
// and the INT32 results are dequantized with their group's scales and reduced in float:
//   C[i][j] = sum over groups g, ascending, of  float(P_g[i][j]) * (a_scale * s[g][j])
// where P_g is group g's exact INT32 sub-GEMM and the scale product is rounded to float first;
// each term is added to the running float sum (a multiply and an add, or a fused multiply-add when
// the compiler contracts them: the bound below covers both). With S the exact sum of the terms,
// |C - S| <= G * 2^-23 * sum_g |term_g|   (G groups; each term exact but for <= 1 ulp in the
// scale product and its multiply). The `lower` faces (one HMX sub-GEMM per group plus HVX float
// reductions on the NPU; CPU; GPU) are in gemm_lower_npu.h / gemm_lower.h.
#include "kernels/gemm/gemm_dims.h"
#include "kernels/quant/group_quant.h"
#include "kernels/tensor/tensor.h"

namespace socsim::kernels {

// Largest group whose INT8 sub-GEMM sums exactly in float (packed_gemm.h): 1024 x 2^14 = 2^24.
inline constexpr std::int64_t kGemmGroupMax = 1024;

// C[m x n] float32 = dequant(A) * dequant(W): A int8 [m x k] with a per-tensor scale, W per-group.
Tensor gemm_i8_per_group(const Tensor& a, float a_scale, const GroupQuantizedI8& w,
                         unsigned threads = default_gemm_threads());

}  // namespace socsim::kernels
