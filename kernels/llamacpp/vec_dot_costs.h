#pragma once
// Instruction mixes of llama.cpp's ARM64 CPU kernels as of early 2024, the papers' CPU baseline
// ("llama.cpp on the CPU (K-Quant)", llm.npu; HeteroLLM and shadowAttn cite it too). Counted from
// ggerganov/llama.cpp at 33a52448 (2024-04-01); the K-quant NEON code is identical from a07d0fee
// (2024-02-11) to 0c27e6f6 (2024-05-31). Counts are vector micro-ops on the ASIMD pipes (loads go
// to the load pipes and are not counted); a core issues simd_pipes of them per cycle
// (cpu.clusters.*.simd_pipes), so a kernel's rate follows from the core, not from a fitted
// efficiency. Reconstruction and sources: README "CPU baselines: the llama.cpp engine".
#include <cstdint>
#include <string_view>

namespace socsim::kernels::llamacpp {

// Elements of a K-quant super-block (QK_K).
inline constexpr double kSuperBlock = 256;

// ggml_vec_dot_q4_K_q8_K, NEON + dotprod (ggml-quants.c L6567-6630), per super-block of 256
// multiply-adds: 4 iterations of {2 AND + 2 USHR (nibbles), 4 SDOT, 2 ADDV + 2 moves to a general
// register (one horizontal add per 32-element sub-block: each has its own 6-bit scale)} = 48,
// plus ~10 for the min correction and scales (bsums: pairwise add, widen, 2 widening multiplies,
// add, ADDV; 2 lane inserts): 58 (the 6-bit scale unpacking is scalar). One weight row times one activation
// column per call (nrc == 1: no i8mm path for K-quants in this period), so nothing is reused
// across columns.
inline constexpr double kQ4KUopsPerBlock = 58;

// ggml_vec_dot_q6_K_q8_K (L7853 on): 2 iterations of 38 AND/SHL/USHR/ORR rebuilding the 6-bit
// values, 8 SDOT and 8 ADDV + 8 moves (one horizontal add per SDOT, each scaled by an int8),
// plus ~10 outer ops (widen, 4 widening multiplies, adds, ADDV): 76 + 16 + 32 + 10 = 134.
inline constexpr double kQ6KUopsPerBlock = 134;

// Every kernel above issues 16 SDOTs per 256 multiply-adds. A core without ARMv8.2 dot products
// (the Jetson TX2's A57 and Denver 2) runs llama.cpp's ggml_vdotq_s32 fallback instead (ggml
// 8492157, ggml-quants.c L457-469): SMULL, SMULL2, 2 SADDLP and 2 ADD, 6 micro-ops for each SDOT.
inline constexpr double kSdotPer256 = 16;
inline constexpr double kEmulatedSdotUops = 6;

// quantize_row_q8_K (L3585-3622): the scalar reference (no NEON version): an abs-max pass, a
// scale-and-round pass (nearest_int) and 16 block sums, ~2,000-2,500 scalar ops per 256 values.
// It runs in mul_mat's INIT phase on thread 0 alone, once per activation row per matmul node
// (q, k and v each quantize the same input).
inline constexpr double kQ8KScalarOpsPerElement = 9;

// ggml_vec_dot_f16 without __ARM_FEATURE_FP16_VECTOR_ARITHMETIC (the README's Android build,
// -march=armv8.4a+dotprod): GGML_F16_STEP 16, EPR 4: per step of 16 elements, 8 half-to-single
// widenings and 4 FP32 FMAs.
inline constexpr double kF16DotUopsPerElement = 12.0 / 16.0;
// The dot's end: GGML_F32x4_REDUCE of the 4 accumulators (3 adds) and one ADDV.
inline constexpr double kF16DotReduceUops = 4;
// fp32 -> fp16 row conversion (ggml_fp32_to_fp16_row, auto-vectorized FCVTN/FCVTN2 pairs): a
// quarter of a micro-op per value, on thread 0 in the INIT phase of the matmul that needs it.
inline constexpr double kF32ToF16UopsPerElement = 0.25;

// ggml_compute_forward_soft_max_f32: per score, three vectorized passes (scale, add the mask,
// normalize by the sum) and a scalar loop: the running max, then for a visible score subtract,
// fp32 -> fp16, look up ggml_table_exp_f16, fp16 -> fp32, add to a double sum, store (7); a
// masked score (-INF) is still visited: compare and store zero (2).
inline constexpr double kSoftmaxVectorOpsPerScore = 3;
// One FP32 add or multiply on 4 lanes: a quarter micro-op per score per pass.
inline constexpr double kSoftmaxVectorUopsPerOp = 0.25;
inline constexpr double kSoftmaxScalarOpsMasked = 1 + 2;
inline constexpr double kSoftmaxScalarOpsVisible = 1 + 7;

// The KV cache's cells are used in multiples of 32 (llama.cpp pads n_kv to 32, L10094).
inline constexpr std::uint64_t kKvPad = 32;
// The prompt is decoded in batches of n_batch tokens (default 512): each batch's attention
// covers every cached key (no causal skipping: the mask adds -INF, flash attention is off).
inline constexpr std::uint64_t kBatchTokens = 512;
// mul_mat's block tiling (blck_0 = blck_1 = 16): the weight rows are streamed once per block of
// 16 activation columns.
inline constexpr std::uint64_t kColumnBlock = 16;

// Rows whose length is not a multiple of 256 cannot hold K-quant super-blocks: llama.cpp's
// quantizer falls back to Q5_0 for Q4_K and to Q8_0 for Q6_K (llama_tensor_get_type's
// incompatible-shape fallback), both against Q8_0 activations in 32-element blocks.
// ggml_vec_dot_q8_0_q8_0 (NEON, dotprod, no i8mm pair): per 256 MACs 16 SDOT, 8 vaddq, 8 int->float
// conversions and 8 multiply-accumulates by the block scales: 40 (counted). Q5_0: Q4_0's counted
// 64 (8 AND + 8 USHR + 16 subtractions, 16 SDOT, 8 conversions, 8 multiply-accumulates) plus the
// fifth bits merged in from qh (about 2 per 32-element block, estimated): 80.
inline constexpr double kQ8_0UopsPer256 = 40;
inline constexpr double kQ5_0UopsPer256 = 80;
inline constexpr double kQ8_0BytesPer256 = 272;  // 8 blocks of 34 B
inline constexpr double kQ5_0BytesPer256 = 176;  // 8 blocks of 22 B
// Bytes per 256-weight super-block: Q4_K 144, Q6_K 210; Q8_K activations 292.
inline constexpr double kQ4KBytesPerBlock = 144;
inline constexpr double kQ6KBytesPerBlock = 210;
inline constexpr double kQ8KBytesPerBlock = 292;

// Q4_K_M (llama_tensor_get_type, llama.cpp L12888-13061): output.weight is Q6_K; attn_v and
// ffn_down are Q6_K in the layers where use_more_bits(i, n) holds, Q4_K elsewhere; every other
// matrix is Q4_K. Returns the fraction of a matmul's weights that are Q6_K over all `layers`
// decoder layers (the layers share shapes, so a per-op average is exact for a whole pass):
// "lm_head" 1; "v_proj", "down_proj" and "fc2" the use_more_bits fraction; others 0.
double q4_k_m_q6_k_fraction(std::string_view op_name, std::uint64_t layers);
// use_more_bits(i, n) = i < n/8 || i >= 7n/8 || (i - n/8) % 3 == 2 (integer division).
bool use_more_bits(std::uint64_t layer, std::uint64_t layers);

}  // namespace socsim::kernels::llamacpp
