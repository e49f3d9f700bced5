#pragma once
// FlashAttention-style tiled attention in FP16, the NPU algorithm of the TTS paper (section
// 5.2.1, Algorithm 1 as reconstructed in docs), `compute` face.
//
// Per head and query block of q_block rows, over KV tiles of kv_tile keys (32 or 64), skipping
// tiles wholly in the block's future:
//   S = Q K^T            FP16 inputs, FP32 accumulation, the scale applied at the drain, rounded
//                        to FP16 (HMX scales output columns)
//   m' = max(m, rowmax S)                          FP16
//   P  = exp(S - m')     difference rounded to FP16, exp by the chosen variant (LUT default)
//   a  = exp(m - m')     same exp
//   l  = a l + rowsum P  FP32
//   O  = a O + P V       P V accumulated in FP32 and rounded to FP16; a O and the add in FP16
// and finally O / l in FP32. Masked keys (j > p0 + i) get no weight. Inputs may be F32 (rounded
// to FP16 on entry) or F16; the output is F32 [heads, m, d].
//
// Error bound against attention_f32 on the same (F32) inputs, per output element o_ic, with
// u = 2^-11 (checked by tests/unit/kernels/attention/flash_attention_test.cpp):
//   |o' - o| <= sum_j p_j r_j |v_jc| + (u (1 + 3T) + 3 n 2^-24) max_j |v_jc|
// where T is the number of tiles, n the visible keys, and r_j the relative error of key j's
// softmax weight: with Delta_j = scale sum_t |q_t k_jt| (2u + d 2^-24) + |s_j| u + |d_j| u
// + eps_exp(d_j) + R (d_j = s_j - max s; R the rescale error, summed over tiles where the running
// max rose by dm: (dm + 2 delta) u + eps_exp(dm + 2 delta)), and S = sum_k p_k (e^Delta_k - 1):
//   r_j = max(e^Delta_j / (1 - S) - 1, 1 - e^-Delta_j / (1 + S)).
// eps_exp is 2^-11 for the LUT and exact variants and exp_poly_error_bound for the polynomial.
// In words: the FP16 rounding of q, k, S and d, the exp's own error, three FP16 roundings per
// tile on O, and FP32 sums plus FP16 underflow of tiny weights (3 n 2^-24). On random N(0,1)
// data the measured error is 3-6% of this bound: at most 1.2e-3 of max|v| for the LUT, 7e-4 for
// the polynomial, 4e-4 for the exact exp (the tests print them).
// Limit: the unnormalized FP16 accumulator O holds up to l max|v| with l <= n, so it overflows
// FP16 (65504) when n max|v| nears that; the hardware algorithm has the same limit.
#include <cstdint>
#include <optional>

#include "kernels/attention/attention_shape.h"
#include "kernels/softmax/exp_variant.h"
#include "kernels/softmax/lut_exp.h"

namespace socsim::kernels {

struct FlashParams {
  std::uint32_t kv_tile = 64;  // Bc: keys per tile, 32 or 64
  std::uint32_t q_block = 32;  // Br: query rows per block (the HMX tile height)
  ExpVariant exp = ExpVariant::kLut;
};

void validate_flash_params(const FlashParams& p);

// For kLut without a table, one is built for the call.
// Runs an AVX+F16C build of the kernel when the host has F16C, bit-identical to the baseline one.
Tensor flash_attention(const Tensor& q, const Tensor& k, const Tensor& v, std::uint64_t p0, const FlashParams& p = {},
                       const LutExpTable* lut = nullptr, std::optional<float> scale = std::nullopt);
// The baseline x86-64 build whatever the host (tests compare the two).
Tensor flash_attention_baseline(const Tensor& q, const Tensor& k, const Tensor& v, std::uint64_t p0, const FlashParams& p = {},
                                const LutExpTable* lut = nullptr, std::optional<float> scale = std::nullopt);

}  // namespace socsim::kernels
