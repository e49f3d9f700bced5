#pragma once
// The CPU work of llama.cpp's kernels (vec_dot_costs.h) for the hardware model: matmuls through
// the K-quant vec_dot, attention through the F16 vec_dot over every cached key, each preceded by
// the single-threaded INIT conversion of its other operand, and the statically split rows.
//   auto w = lower_kquant_matmul_cpu({512, 4096, 4096}, 0.0, 4);  // Q4_K, 4 threads
#include <cstdint>

#include "kernels/attention/attention_shape.h"
#include "kernels/gemm/gemm_dims.h"
#include "kernels/lowering/work.h"

namespace socsim::kernels::llamacpp {

// A [m x k] x [k x n] matmul on K-quant weights, `q6_k_fraction` of them Q6_K (the rest Q4_K):
// "quantize_q8_K" (thread 0 quantizes the m activation rows) then "vec_dot_q4_K_M" (one vec_dot
// per weight row and activation column, rows split evenly over the threads, the weights streamed
// once per block of 16 columns). k not a multiple of 256: llama.cpp's fallback types, Q5_0 and
// Q8_0 ("vec_dot_q5_0_q8_0").
CpuWork lower_kquant_matmul_cpu(const GemmDims& d, double q6_k_fraction, std::uint32_t threads);

// One layer's attention for a batch of s.q_len tokens, in the three parts the runtime reports:
// scores (Q to FP16 on thread 0, then K.Q over every cached key padded to 32), softmax (vector
// passes and the scalar LUT loop over the same width), context (the FP32 scores to FP16 on thread
// 0, then V.P). Every query head reads its own K and V rows (GQA heads are broadcast by index).
struct AttentionWork {
  CpuWork scores, softmax, context;
};
AttentionWork lower_attention_cpu(const AttentionShape& s, std::uint32_t threads);

// Cached keys a batch's attention covers: every key in the cache, padded to 32 cells.
std::uint64_t padded_keys(const AttentionShape& s);

}  // namespace socsim::kernels::llamacpp
