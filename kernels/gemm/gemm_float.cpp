#include "kernels/gemm/gemm_float.h"

#include <cstring>
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

}  // namespace

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
