#include "kernels/gemm/gemm_group.h"

#include <string>

#include "kernels/gemm/packed_gemm.h"
#include "kernels/gemm/row_major_packers.h"

namespace socsim::kernels {

namespace {

// One depth block = one group: the block's float sums are the exact INT32 sub-GEMM, scaled by the
// group's column scales and added to the float result (zero before the first group).
struct GroupSink {
  float* c;
  const float* scales;  // [groups x n]
  float a_scale;
  std::int64_t n, group;
  void load(std::int64_t, std::int64_t, int, int, std::int64_t, float*) const {}
  void store(std::int64_t i, std::int64_t j, int mr, int nr, std::int64_t k0, std::int64_t, const float* acc) const {
    const float* s = scales + (k0 / group) * n + j;
    float scale[kGemmNr];
    for (int x = 0; x < nr; ++x) scale[x] = a_scale * s[x];
    for (int r = 0; r < mr; ++r) {
      float* out = c + (i + r) * n + j;
      const float* in = acc + r * kGemmNr;
      if (k0 == 0) {
        for (int x = 0; x < nr; ++x) out[x] = in[x] * scale[x];
      } else {
        for (int x = 0; x < nr; ++x) out[x] += in[x] * scale[x];
      }
    }
  }
};

}  // namespace

Tensor gemm_i8_per_group(const Tensor& a, float a_scale, const GroupQuantizedI8& w, unsigned threads) {
  const GemmDims d = gemm_dims(a, ElemType::kI8, w.q, ElemType::kI8);
  if (w.group < 1 || w.group > kGemmGroupMax) {
    throw std::invalid_argument("per-group GEMM needs groups of 1.." + std::to_string(kGemmGroupMax) + " rows, not " +
                                std::to_string(w.group));
  }
  if (w.scales.rank() != 2 || w.scales.dim(0) != (d.k + w.group - 1) / w.group || w.scales.dim(1) != d.n) {
    throw std::invalid_argument("per-group scales do not match the weights");
  }
  Tensor c = Tensor::matrix(d.m, d.n, ElemType::kF32);
  const RowMajorLeft<std::int8_t> left(a.data<std::int8_t>().data(), d.k);
  const RowMajorRight<std::int8_t> right(w.q.data<std::int8_t>().data(), d.n);
  const GroupSink sink{c.data<float>().data(), w.scales.data<float>().data(), a_scale, d.n, w.group};
  run_packed_gemm(d, left, right, sink, w.group, threads);
  return c;
}

}  // namespace socsim::kernels
