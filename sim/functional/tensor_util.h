#pragma once
// Small conversions the functional forward needs between kernels: FP32 <-> FP16 tensors,
// transposition, and building 2-D FP32 tensors from rows.
#include <cstdint>

#include "kernels/tensor/tensor.h"

namespace socsim::functional {

kernels::Tensor to_half(const kernels::Tensor& f32);    // rounded to nearest even
kernels::Tensor to_float(const kernels::Tensor& f16);
kernels::Tensor transpose(const kernels::Tensor& m);     // F32 matrix
// A zeroed F32 matrix.
inline kernels::Tensor f32_matrix(std::uint64_t rows, std::uint64_t cols) {
  return kernels::Tensor::matrix(static_cast<std::int64_t>(rows), static_cast<std::int64_t>(cols), kernels::ElemType::kF32);
}

}  // namespace socsim::functional
