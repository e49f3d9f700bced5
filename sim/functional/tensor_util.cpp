#include "sim/functional/tensor_util.h"

#include <algorithm>

#include "kernels/gemm/bulk_convert.h"

namespace socsim::functional {

using kernels::ElemType;
using kernels::Tensor;

Tensor to_half(const Tensor& f32) {
  Tensor h(f32.shape(), ElemType::kF16);
  kernels::narrow(f32.data<float>().data(), h.data<kernels::half>().data(), f32.numel());
  return h;
}

Tensor to_float(const Tensor& f16) {
  Tensor f(f16.shape(), ElemType::kF32);
  kernels::widen(f16.data<kernels::half>().data(), f.data<float>().data(), f16.numel());
  return f;
}

Tensor transpose(const Tensor& m) {
  const std::int64_t rows = m.dim(0), cols = m.dim(1);
  Tensor t = Tensor::matrix(cols, rows, ElemType::kF32);
  const float* s = m.data<float>().data();
  float* d = t.data<float>().data();
  constexpr std::int64_t kB = 64;  // blocked: both sides stay in cache
  for (std::int64_t r0 = 0; r0 < rows; r0 += kB) {
    for (std::int64_t c0 = 0; c0 < cols; c0 += kB) {
      for (std::int64_t r = r0; r < std::min(rows, r0 + kB); ++r) {
        for (std::int64_t c = c0; c < std::min(cols, c0 + kB); ++c) d[c * rows + r] = s[r * cols + c];
      }
    }
  }
  return t;
}

}  // namespace socsim::functional
