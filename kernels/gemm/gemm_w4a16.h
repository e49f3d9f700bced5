#pragma once
// W4A16 GEMM (TTS paper 5.1-5.2): Q4_0 weights (4.5 bits/weight; Q8_0, 8.5 bits, for FFN-down)
// dequantized to FP16 and multiplied with FP16 activations as the HMX FP16 GEMM does. The
// `compute` face; the `lower` faces (HVX dequantization + HMX on the NPU, GPU, CPU) are in
// gemm_lower_npu.h / gemm_lower.h.
//
// Numerics: each weight becomes half(float(d) * value) -- the exact product rounded once to FP16,
// what an FP16 multiply by the block scale yields (block_quant.h, dequantize_blocks_to_half) --
// and the GEMM is then gemm_f16_hmx's: FP32 accumulation over k ascending, one rounding to FP16
// per output. Bit-identical to gemm_f16(a, transpose(dequantize_blocks_to_half(w))).
#include "kernels/gemm/gemm_dims.h"
#include "kernels/quant/block_quant.h"
#include "kernels/tensor/tensor.h"

namespace socsim::kernels {

// C[m x n] (FP16, row-major) = A[m x k] (FP16, row-major) * W, where `w` holds W transposed
// (w.rows = n, w.cols = k, blocks along k: the ggml orientation). Q4_0 or Q8_0.
// Up to kW4A16FusedMaxRows rows (decode) the product is computed straight from the blocks
// (w4a16_fused.h) where the host allows; otherwise, and for more rows, by the packed engine.
Tensor gemm_w4a16(const Tensor& a, const BlockQuantized& w, unsigned threads = default_gemm_threads());

// std::invalid_argument unless A is an FP16 matrix with w.cols columns (both paths check it).
void require_w4a16_operands(const Tensor& a, const BlockQuantized& w);

// The packed-engine path alone (packed_gemm.h), whatever m: the definition the fused path is held
// to, bit for bit, by the tests.
Tensor gemm_w4a16_packed(const Tensor& a, const BlockQuantized& w, unsigned threads = default_gemm_threads());

}  // namespace socsim::kernels
