#pragma once
// Row softmax, the `compute` face. Rows are the last dimension of a 2-D [rows, cols] tensor.
//
// softmax_f32: the exact reference. Max-subtracted, std::exp in FP32, FP32 sum.
// softmax_f16: the NPU pipeline in FP16. m = row max; d = x - m rounded to FP16; e = exp(d) by
//   the chosen variant, in FP16; the row sum promoted to FP32; output e * (1/sum) in FP32, rounded
//   once to FP16. Bound against the exact softmax of the same FP16 inputs, per element:
//     |y' - y| <= y * (eps(d_j) + S + 2^-11 + (cols + 2) * 2^-24) + 2^-24
//   where eps(d) = |d| 2^-11 (rounding d) + the exp variant's relative error at d (2^-11 for the
//   LUT and the exact variant; exp_poly_error_bound() for the polynomial), and
//   S = sum_k e_k eps(d_k) / sum_k e_k is the relative error of the sum. 2^-11 is the output
//   rounding, (cols + 2) 2^-24 the FP32 sum, reciprocal and product; 2^-24 covers FP16 underflow
//   (of e, and of y in the subnormal range).
//   tests/unit/kernels/softmax checks this bound element by element.
// A row whose maximum is -inf (fully masked) yields zeros, not NaN.
#include <span>

#include "kernels/softmax/exp_variant.h"
#include "kernels/softmax/lut_exp.h"
#include "kernels/tensor/tensor.h"

namespace socsim::kernels {

void softmax_row_f32(std::span<const float> in, std::span<float> out);
Tensor softmax_f32(const Tensor& x);  // [rows, cols] F32 -> F32

// exp in FP16 by variant, for inputs <= 0. `lut` must be non-null for kLut.
half exp_f16(half d, ExpVariant v, const LutExpTable* lut);

void softmax_row_f16(std::span<const half> in, std::span<half> out, ExpVariant v, const LutExpTable* lut);
// [rows, cols] F16 -> F16. For kLut without a table, one is built for this call.
Tensor softmax_f16(const Tensor& x, ExpVariant v, const LutExpTable* lut = nullptr);

}  // namespace socsim::kernels
