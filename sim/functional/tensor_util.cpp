#include "sim/functional/tensor_util.h"

#include <algorithm>

#include "kernels/gemm/bulk_convert.h"
#include "kernels/gemm/gemm_dims.h"
#include "kernels/gemm/packed_gemm.h"

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
  // Blocked (both sides stay in cache), bands of source rows on the GEMM threads: every weight of
  // a functional run is transposed into the orientation its kernel reads, once per layer.
  if (rows == 0 || cols == 0) return t;
  constexpr std::int64_t kB = 32;
  const std::int64_t bands = (rows + kB - 1) / kB;
  const auto threads = static_cast<std::int64_t>(std::min<std::uint64_t>(kernels::default_gemm_threads(), static_cast<std::uint64_t>(bands)));
  kernels::parallel_for(static_cast<std::size_t>(std::max<std::int64_t>(threads, 1)), [&](std::size_t part) {
    const std::int64_t first = bands * static_cast<std::int64_t>(part) / threads, last = bands * static_cast<std::int64_t>(part + 1) / threads;
    for (std::int64_t r0 = first * kB; r0 < std::min(rows, last * kB); r0 += kB) {
      const std::int64_t r1 = std::min(rows, r0 + kB);
      for (std::int64_t c0 = 0; c0 < cols; c0 += kB) {
        const std::int64_t c1 = std::min(cols, c0 + kB);
        for (std::int64_t c = c0; c < c1; ++c) {
          float* out = d + c * rows;
          for (std::int64_t r = r0; r < r1; ++r) out[r] = s[r * cols + c];
        }
      }
    }
  });
  return t;
}

}  // namespace socsim::functional
