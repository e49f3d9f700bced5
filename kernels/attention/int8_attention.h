#pragma once
// INT8 full attention on the NPU (shadowAttn's NPU-Full baseline, PowerInfer-2 style), `compute`.
//   1. Q, K, V quantized per tensor (one scale each, absmax / 127; int8_ops.h).
//   2. S = Q.K^T in INT32 over the dense rectangle (qk_scores_i32).
//   3. Dequantize: s = S * (sQ sK scale); causal positions masked; exact FP32 softmax.
//   4. PV, by option:
//      kInt8 (default; what a quantized static graph does): P quantized to UINT8 with scale 1/255
//        (softmax outputs lie in [0, 1]), P_u8 . V_i8 accumulated in INT32, times sV / 255;
//      kFloat: P in FP32 times the dequantized V (V_i8 * sV).
// Error against FP32 attention on the original tensors, per output element (derived in
// int8_attention.cpp, checked in the tests):
//   |o' - o| <= maxV * (e^(2 delta) - 1) + sV / 2 + [kInt8 only] vis / 510 * maxV'
// where delta = scale * sum_t (|q_t| sK / 2 + |k_t| sQ / 2 + sQ sK / 4) bounds the score error of
// the row's worst key, maxV / maxV' the largest |v| / |dequantized v| in the column, vis the
// row's visible keys.
#include <optional>

#include "kernels/attention/attention_shape.h"
#include "kernels/lowering/work.h"
#include "sim/hw/npu/npu_spec.h"

namespace socsim::kernels {

enum class PvPrecision { kInt8, kFloat };

struct Int8AttentionOptions {
  PvPrecision pv = PvPrecision::kInt8;
  std::optional<float> scale;  // default 1/sqrt(d)
};

struct Int8AttentionScales {
  float q = 1, k = 1, v = 1;
};

Tensor attention_int8(const Tensor& q, const Tensor& k, const Tensor& v, std::uint64_t p0, const Int8AttentionOptions& opt = {},
                      Int8AttentionScales* scales = nullptr);

// `lower` on the NPU: one static graph (graph_call with kInt8GraphNodesPerHead nodes per head),
// then per head an INT8 HMX GEMM for QK^T (m x d x n), HVX for dequantize + mask + FP32 softmax +
// P requantization (int8_attention_row_packets per row), and an INT8 HMX GEMM for PV
// (m x n x d). Q, K, V arrive INT8 from the preceding graph nodes (NPU-Full keeps activations
// quantized), so no quantization cost is charged here. n = p0 + m: the graph computes the dense
// rectangle and masks. Its graph call carries the graph's I/O: Q, K and V in INT8, O out in FP16.
inline constexpr std::uint32_t kInt8GraphNodesPerHead = 8;
double int8_attention_row_packets(const hw::HvxSpec& hvx, std::uint64_t keys);
NpuWork lower_attention_int8_npu(const hw::NpuSpec& npu, const AttentionShape& s, std::uint32_t threads);
// shadowAttn's estimation alone: one graph of `heads` fused QK^T (4 nodes per head: slice Q,
// slice K, transpose K, matmul) and its INT8 HMX GEMMs, which write their INT32 scores raw
// (kQkScoreBytes each; what functional mode hands the top-k, and what its timing reads). Its
// graph call carries the graph's I/O: Q and K in INT8, the scores out (qk_estimate_io_bytes).
inline constexpr std::uint32_t kQkScoreBytes = 4;
inline constexpr std::uint32_t kQkGraphNodesPerHead = 4;
NpuWork lower_qk_estimate_npu(const AttentionShape& s);
// Q [heads, rows, d] and K [heads, keys, d] in, the scores [heads, rows, keys] out: each query
// head is its own slice pair (the paper's graph: Q [1,1,128,64], K [1,1,2048,64] per head; GQA
// estimates per query head, and a batch's sequences each bring their own keys). INT8 operands
// with raw INT32 scores (kQkScoreBytes), or FP16 throughout (`fp16`).
std::uint64_t qk_estimate_io_bytes(std::uint64_t heads, std::uint64_t rows, std::uint64_t head_dim, std::uint64_t keys, bool fp16 = false);

}  // namespace socsim::kernels
