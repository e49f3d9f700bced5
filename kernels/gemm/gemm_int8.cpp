#include "kernels/gemm/gemm_int8.h"

#include <cstring>
#include <string>

#include "kernels/gemm/row_major_packers.h"

namespace socsim::kernels {

namespace {

// Each depth block's float sums are exact integers; INT32 addition joins the blocks.
struct Int32Sink {
  std::int32_t* c;
  std::int64_t ldc;
  void load(std::int64_t, std::int64_t, int, int, std::int64_t, float*) const {}
  void store(std::int64_t i, std::int64_t j, int mr, int nr, std::int64_t k0, std::int64_t, const float* acc) const {
    for (int r = 0; r < mr; ++r) {
      std::int32_t* out = c + (i + r) * ldc + j;
      const float* in = acc + r * kGemmNr;
      if (k0 == 0) {
        for (int x = 0; x < nr; ++x) out[x] = static_cast<std::int32_t>(in[x]);
      } else {
        for (int x = 0; x < nr; ++x) out[x] += static_cast<std::int32_t>(in[x]);
      }
    }
  }
};

static_assert(kGemmKc * 128 * 128 <= (1 << 24), "an int8 depth block must sum exactly in float");

}  // namespace

Tensor gemm_i8(const Tensor& a, const Tensor& w, unsigned threads) {
  const GemmDims d = gemm_dims(a, ElemType::kI8, w, ElemType::kI8);
  if (d.k > kGemmI8MaxK) {
    throw std::invalid_argument("INT8 GEMM depth " + std::to_string(d.k) + " could overflow INT32 (max " +
                                std::to_string(kGemmI8MaxK) + ")");
  }
  Tensor c = Tensor::matrix(d.m, d.n, ElemType::kI32);
  const RowMajorLeft<std::int8_t> left(a.data<std::int8_t>().data(), d.k);
  const RowMajorRight<std::int8_t> right(w.data<std::int8_t>().data(), d.n);
  run_packed_gemm(d, left, right, Int32Sink{c.data<std::int32_t>().data(), d.n}, kGemmKc, threads);
  return c;
}

Tensor dequantize_i32(const Tensor& c, float a_scale, float w_scale) {
  if (c.type() != ElemType::kI32) throw std::invalid_argument("dequantize_i32 takes an int32 tensor");
  Tensor y(c.shape(), ElemType::kF32);
  const float scale = a_scale * w_scale;
  const auto in = c.data<std::int32_t>();
  auto out = y.data<float>();
  for (std::size_t i = 0; i < in.size(); ++i) out[i] = static_cast<float>(in[i]) * scale;
  return y;
}

}  // namespace socsim::kernels
