#pragma once
// `lower` of the FP32 attention kernels on the CPU and the GPU (shadowAttn's C/G-Full,
// C/G-Sparse and C/G-Block-Sparse). The NPU paths are in int8_attention.h and flash_lower.h.
//
// Full causal attention (attention_f32), with R = m keys_used() = m (p0 + m) scores in the
// rectangle and VT = visible_total() = m p0 + m (m + 1) / 2 of them visible, per head. The two
// GEMMs are mat-mul kernels over the whole rectangle: they compute the future keys' scores, which
// are then masked (mllm's CPUMatmul -> CPUCausalMask/CPUSoftMax -> CPUMatmul under llm.npu,
// llama.cpp's mul_mat -> soft_max_ext -> mul_mat, the GPU engines' mat-muls alike); the softmax
// skips them:
//   attention.qk       2 d R flops per head; reads Q and the head's K (keys_used rows)
//   attention.softmax  (4 + 16 exp) per visible score + 1 per row; scores stay in cache
//   attention.pv       2 d R flops per head; reads V, writes O
// (a chunk of m queries after p0 keys wastes m (m - 1) / 2 of its R: half of a whole prompt
// computed at once, 1/16 of a 3840-token prompt in 256-token chunks).
// K and V are read once per query head from the FP16 cache (the engines' mul_mat kernels do not
// share a GQA group's keys); Q and O move as FP32. GEMM rows: m per head on the CPU (micro-kernel padding), heads x m on
// the GPU (one launch). The CPU face takes the arithmetic of the two GEMMs (qk, pv): FP32, or
// FP16 (ARMv8.2 FP16 FMAs, twice the lanes: an engine that keeps its KV cache in FP16 and
// multiplies in FP16, e.g. mllm's CPU backend under llm.npu); softmax stays FP32.
//
// Sparse attention over `kept` (query row, key) pairs in total: one gather kernel,
// kept (4 d + 4 + 16) + heads m ops; bytes Q and O plus the gathered K and V rows, a row counted
// once per head at most (min(kept, heads keys_used)).
//
// Block-sparse (block_sparse.h) with QB = ceil(m / B), KB = ceil(keys_used / B), and per query
// block a: c_a candidate key blocks, k_a kept (blocks_to_keep), r_a rows:
//   block_sparse.pool      (m + keys_used) d adds + (QB + KB) d scales per head; reads Q and K
//   block_sparse.estimate  2 d QB KB flops per head
//   block_sparse.select    topk_row_ops(c_a, k_a) per (head, a)
//   block_sparse.attention r_a k_a B scores per (head, a), each 4 d + 20 ops, + r_a; reads Q, O
//                          and k_a B K and V rows per (head, a)
#include <cstdint>

#include "kernels/attention/attention_shape.h"
#include "kernels/attention/block_sparse.h"
#include "kernels/lowering/work.h"

namespace socsim::kernels {

CpuWork lower_attention_cpu(const AttentionShape& s, std::uint32_t threads, hw::DType gemm_dtype = hw::DType::kFp32);
GpuWork lower_attention_gpu(const AttentionShape& s);

// Total kept pairs when every row keeps ceil(ratio * visible) keys (shadowAttn's per-row k).
std::uint64_t sparse_kept_total(const AttentionShape& s, double ratio);
CpuWork lower_sparse_attention_cpu(const AttentionShape& s, std::uint64_t kept, std::uint32_t threads);
GpuWork lower_sparse_attention_gpu(const AttentionShape& s, std::uint64_t kept);

CpuWork lower_block_sparse_attention_cpu(const AttentionShape& s, const BlockSparseParams& p, std::uint32_t threads);
GpuWork lower_block_sparse_attention_gpu(const AttentionShape& s, const BlockSparseParams& p);

}  // namespace socsim::kernels
