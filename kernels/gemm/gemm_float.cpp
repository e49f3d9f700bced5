#include "kernels/gemm/gemm_float.h"

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "kernels/gemm/half_output_sink.h"
#include "kernels/gemm/row_major_packers.h"

namespace socsim::kernels {

namespace {

// FP32 output: the first depth block starts at zero, later ones continue from C itself.
struct FloatSink {
  float* c;
  std::int64_t ldc;
  void load(std::int64_t i, std::int64_t j, int mr, int nr, std::int64_t k0, float* acc) const {
    if (k0 == 0) return;
    for (int r = 0; r < mr; ++r) copy_tile_row(acc + r * kGemmNr, c + (i + r) * ldc + j, nr);
  }
  void store(std::int64_t i, std::int64_t j, int mr, int nr, std::int64_t, std::int64_t, const float* acc) const {
    for (int r = 0; r < mr; ++r) copy_tile_row(c + (i + r) * ldc + j, acc + r * kGemmNr, nr);
  }
};

// W[k x n] read from its transpose Wt[n x k] (row-major, leading dimension ld): each output
// column is a contiguous run of Wt, written down its panel's column.
class OutInRight final : public RightPacker {
 public:
  OutInRight(const float* data, std::int64_t ld) : data_(data), ld_(ld) {}
  void pack(float* dst, std::int64_t k0, std::int64_t kc, std::int64_t j0, std::int64_t nc) const override {
    for (std::int64_t c0 = 0; c0 < nc; c0 += kGemmNr) {
      float* panel = dst + (c0 / kGemmNr) * kc * kGemmNr;
      const std::int64_t count = std::min<std::int64_t>(kGemmNr, nc - c0);
      for (std::int64_t c = 0; c < kGemmNr; ++c) {
        if (c >= count) {
          for (std::int64_t kk = 0; kk < kc; ++kk) panel[kk * kGemmNr + c] = 0.0f;
          continue;
        }
        const float* src = data_ + (j0 + c0 + c) * ld_ + k0;
        for (std::int64_t kk = 0; kk < kc; ++kk) panel[kk * kGemmNr + c] = src[kk];
      }
    }
  }

 private:
  const float* data_;
  std::int64_t ld_;
};

}  // namespace

Tensor gemm_f32_out_in(const Tensor& a, const Tensor& w_out_in, unsigned threads) {
  require_matrix(a, ElemType::kF32, "GEMM activations");
  require_matrix(w_out_in, ElemType::kF32, "GEMM weights");
  if (a.dim(1) != w_out_in.dim(1)) {
    throw std::invalid_argument("GEMM inner extents differ: A has k = " + std::to_string(a.dim(1)) +
                                ", the weights (outputs by inputs) k = " + std::to_string(w_out_in.dim(1)));
  }
  const GemmDims d{a.dim(0), a.dim(1), w_out_in.dim(0)};
  Tensor c = Tensor::matrix(d.m, d.n, ElemType::kF32);
  const RowMajorLeft<float> left(a.data<float>().data(), d.k);
  const OutInRight right(w_out_in.data<float>().data(), d.k);
  run_packed_gemm(d, left, right, FloatSink{c.data<float>().data(), d.n}, kGemmKc, threads);
  return c;
}

Tensor gemm_f32(const Tensor& a, const Tensor& w, unsigned threads) {
  const GemmDims d = gemm_dims(a, ElemType::kF32, w, ElemType::kF32);
  Tensor c = Tensor::matrix(d.m, d.n, ElemType::kF32);
  const RowMajorLeft<float> left(a.data<float>().data(), d.k);
  const RowMajorRight<float> right(w.data<float>().data(), d.n);
  run_packed_gemm(d, left, right, FloatSink{c.data<float>().data(), d.n}, kGemmKc, threads);
  return c;
}

Tensor gemm_f16(const Tensor& a, const Tensor& w, unsigned threads) {
  const GemmDims d = gemm_dims(a, ElemType::kF16, w, ElemType::kF16);
  Tensor c = Tensor::matrix(d.m, d.n, ElemType::kF16);
  using Sink = HalfOutputSink<RowMajorHalfWriter>;
  std::vector<float> scratch(Sink::scratch_size(d, kGemmKc));
  const RowMajorLeft<half> left(a.data<half>().data(), d.k);
  const RowMajorRight<half> right(w.data<half>().data(), d.n);
  run_packed_gemm(d, left, right, Sink(d, kGemmKc, scratch.data(), RowMajorHalfWriter{c.data<half>().data(), d.n}),
                  kGemmKc, threads);
  return c;
}

}  // namespace socsim::kernels
