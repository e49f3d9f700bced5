#pragma once
// FP32 and FP16 GEMM, the `compute` face of the CPU and GPU float matmuls (their `lower` faces are
// in gemm_lower.h). Row-major operands, C[m x n] = A[m x k] * W[k x n], blocked and multi-threaded
// (packed_gemm.h).
#include "kernels/gemm/gemm_dims.h"
#include "kernels/tensor/tensor.h"

namespace socsim::kernels {

// FP32 in and out. Each output is one FP32 chain over k ascending (fused multiply-add on hosts with
// FMA), so |C - C_exact| <= g_k * sum_k |a||w| with g_k = k u / (1 - k u), u = 2^-24.
Tensor gemm_f32(const Tensor& a, const Tensor& w, unsigned threads = default_gemm_threads());

// gemm_f32 with the weight given as its transpose, w_out_in [n x k] (a weight stored outputs by
// inputs, as checkpoints store linear layers): packed straight from that layout, so no transposed
// copy is made; bit-identical to gemm_f32(a, transpose(w_out_in)).
Tensor gemm_f32_out_in(const Tensor& a, const Tensor& w_out_in, unsigned threads = default_gemm_threads());

// FP16 in and out with FP32 accumulation: products are exact in FP32, each output is summed in
// FP32 over k ascending and rounded to FP16 once (half_output_sink.h). Bit-identical to that FP32
// loop followed by one rounding; against an exact result (FP64 reference),
// |C - C_exact| <= 2^-11 |C_exact| + (1 + 2^-11) g_k sum_k |a||w|   (g_k as above)
// while C is a normal FP16 number (outputs below 2^-14 add at most 2^-25 absolute).
Tensor gemm_f16(const Tensor& a, const Tensor& w, unsigned threads = default_gemm_threads());

}  // namespace socsim::kernels
