#pragma once
// The small-m (decode) path of gemm_w4a16: the product computed straight from the Q4_0/Q8_0
// blocks, without the packed engine's float weight panels. With one row of activations the packed
// path writes every dequantized weight to a panel and reads it back once, and its 6-row micro-kernel
// does 6x the arithmetic the row needs; here each block is dequantized in registers and consumed
// at once by up to kW4A16FusedPassRows rows.
//
// Numerics are the packed path's to the bit (tests/unit/kernels/gemm/gemm_w4a16_fused_test.cpp):
// each weight is half(float(d) * value), the FP16 rounding pack_q4_panel's table and pack_q8_panel
// apply; each output is one FP32 sum over k ascending starting from +0 (the packed path keeps the
// sum in FP32 across its depth blocks, so they do not change it; fp16 x fp16 products are exact in
// FP32, so fma and mul+add agree), rounded to FP16 once at the end.
#include "kernels/gemm/gemm_dims.h"
#include "kernels/quant/block_quant.h"
#include "kernels/tensor/tensor.h"

namespace socsim::kernels {

// gemm_w4a16 takes the fused path up to this many rows of A, the packed path above. The fused
// path's cost grows with m (one pass over the weights per kW4A16FusedPassRows rows), the packed
// path's hardly does below its 6-row micro-kernel; on a 2-core AVX2 host (socsim_benchmarks
// --benchmark_filter=W4A16Q4Decode, k = 4096, n = 4096 and 11008) the fused path is 3.5-5x faster
// at m = 1-4, 1.2-1.4x at m = 16, and even with the packed one at m = 24.
inline constexpr std::int64_t kW4A16FusedMaxRows = 16;

// Rows of A one pass over the weights serves: 2 accumulators per row, 4 rows leave room in the 16
// vector registers for the scales, the weights and the broadcast activation.
inline constexpr std::int64_t kW4A16FusedPassRows = 4;

// Whether this host runs the fused path (it needs AVX2, FMA and F16C; the rounding to FP16 must be
// the F16C instruction the packed path's bulk conversions use there).
bool w4a16_fused_available();

// C[m x n] = A[m x k] * W as gemm_w4a16 defines it, for any m (more than kW4A16FusedPassRows rows
// take several passes over the weights), on up to `threads` host threads. std::logic_error when
// w4a16_fused_available() is false.
Tensor gemm_w4a16_fused(const Tensor& a, const BlockQuantized& w, unsigned threads = default_gemm_threads());

}  // namespace socsim::kernels
