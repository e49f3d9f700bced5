#pragma once
// FlashAttention, the `lower` face.
//
// NPU (TTS paper): per head and query block of r <= q_block rows seeing n_b keys, T_b =
// ceil(n_b / kv_tile) tiles (tiles wholly in the block's future are skipped), split into chunks
// of at most G tiles whose GEMM operands fit a quarter of the TCM left beside the 64 KiB LUT
// (double-buffered chunks and resident K/V share the rest). Per chunk of g tiles:
//   hmx_gemm  S = Q_blk K^T      {r, d, g Bc} FP16, operands in TCM
//   hvx       g x flash_tile_hvx_packets (+ flash_finalize_hvx_packets after the last chunk)
//   hmx_gemm  O += P V           {r, g Bc, d} FP16, operands in TCM
// With home = kDram, DMA steps stage them: per head Q in and O out (one transfer each); K and V
// once per kv head when both fit half the TCM beside the LUT (GQA heads of a group reuse them),
// else per chunk. home = kTcm is the kernel-benchmark setting with everything resident.
// A software pipeline (NpuWork::stages) with one iteration per (head, query block, chunk):
//   load (DMA, 2 buffers) -> scores (HMX Q K^T, 2 buffers) -> softmax (HVX, 2 buffers) ->
//   context (HMX P V, then O out after the head's last chunk)
// so HMX computes chunk j + 1's scores while HVX exponentiates chunk j; the online softmax's
// running max and sum keep each stage in order. Approximation: a resident K/V block of the next
// kv head may be staged while the last chunks of the previous head are in flight (the chunk budget
// of a quarter of the TCM leaves room for both).
//
// HVX per tile of r rows x Bc keys, d head dims, with V_t = ceil(r Bc / 64) score vectors,
// R = ceil(r / 64) row vectors and V_o = ceil(r d / 64) output vectors, as instruction mixes in VLIW
// packets by resource (hvx_mix.h; the exp mixes are the TTS paper's kernels, softmax_lower.cpp):
//   per score vector:  segmented row max (log2 Bc rotates + maxes), broadcast m', S - m', exp,
//                      FP32 row sum (widen + 2 adds), rescale (2 multiplies), the P tile shuffled
//                      into the HMX layout and stored
//   per row vector:    m' = max(m, rowmax), m - m', exp for a
//   per output vector: broadcast a, a O, + P V
// Finalize per block: per row the FP32 sum's reduction, per row vector a reciprocal, per output
// vector broadcast + scale.
//
// CPU / GPU: FP16 tiled loops with the same tile skipping: QK and PV 2 d flops per score, softmax
// 3 + exp ops per score, per (row, tile) 2 d + 2 + exp (rescale O, m', a), per row d + 1; bytes
// Q and O once, K and V once per query head (FP16).
#include <cstdint>
#include <functional>

#include "kernels/attention/attention_shape.h"
#include "kernels/attention/flash_attention.h"
#include "kernels/lowering/work.h"
#include "sim/hw/npu/gemm_plan.h"
#include "sim/hw/npu/npu_spec.h"

namespace socsim::kernels {

double flash_tile_hvx_packets(const hw::HvxSpec& hvx, std::uint64_t rows, std::uint64_t kv_tile, std::uint64_t head_dim, ExpVariant v);
double flash_finalize_hvx_packets(const hw::HvxSpec& hvx, std::uint64_t rows, std::uint64_t head_dim);
// Largest tile count per chunk (>= 1) whose GEMM operands fit the chunk budget; throws if one
// tile does not fit.
std::uint64_t flash_chunk_tiles(const hw::NpuSpec& npu, std::uint64_t rows, std::uint64_t head_dim, const FlashParams& p);

NpuWork lower_flash_attention_npu(const hw::NpuSpec& npu, const AttentionShape& s, const FlashParams& p, std::uint32_t threads,
                                  hw::OperandHome home = hw::OperandHome::kTcm);
// The same steps, in the same order, each handed to `emit` as it is made and none kept: for a
// caller that folds them as they come (an attention op's part, coalesced: a batch's prompt kernel
// is 10^4-10^6 steps that end as a handful). The work's stages are lower_flash_attention_npu's.
void for_each_flash_attention_npu_step(const hw::NpuSpec& npu, const AttentionShape& s, const FlashParams& p, std::uint32_t threads,
                                       hw::OperandHome home, const std::function<void(NpuStep&&)>& emit);
CpuWork lower_flash_attention_cpu(const AttentionShape& s, const FlashParams& p, std::uint32_t threads);
GpuWork lower_flash_attention_gpu(const AttentionShape& s, const FlashParams& p);

}  // namespace socsim::kernels
