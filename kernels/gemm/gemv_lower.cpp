#include "kernels/gemm/gemv_lower.h"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "kernels/gemm/gemm_lower.h"

namespace socsim::kernels {

namespace {

void require_gemv(const GemmDims& d) {
  if (d.m != 1) throw std::invalid_argument("a GEMV has one row, not " + std::to_string(d.m));
}

}  // namespace

CpuWork lower_gemm_cpu(const GemmDims& d, const GemmFormat& f, std::uint32_t threads) {
  switch (f.weights) {
    case GemmWeights::kF32: return lower_gemm_f32_cpu(d, threads);
    case GemmWeights::kF16: return lower_gemm_f16_cpu(d, threads);
    case GemmWeights::kI8: return lower_gemm_i8_cpu(d, threads);
    case GemmWeights::kI8PerGroup: return lower_gemm_i8_per_group_cpu(d, f.group, threads);
    case GemmWeights::kBlock: return lower_gemm_w4a16_cpu(d, f.block, threads);
  }
  throw std::invalid_argument("unknown GEMM weight format");
}

GpuWork lower_gemm_gpu(const GemmDims& d, const GemmFormat& f) {
  switch (f.weights) {
    case GemmWeights::kF32: return lower_gemm_f32_gpu(d);
    case GemmWeights::kF16: return lower_gemm_f16_gpu(d);
    case GemmWeights::kI8: return lower_gemm_i8_gpu(d);
    case GemmWeights::kI8PerGroup: return lower_gemm_i8_per_group_gpu(d, f.group);
    case GemmWeights::kBlock: return lower_gemm_w4a16_gpu(d, f.block);
  }
  throw std::invalid_argument("unknown GEMM weight format");
}

CpuWork lower_gemv_cpu(const GemmDims& d, const GemmFormat& f, std::uint32_t threads) {
  require_gemv(d);
  return lower_matvec_cpu(d, f, threads);
}

CpuWork lower_matvec_cpu(const GemmDims& d, const GemmFormat& f, std::uint32_t threads) {
  CpuWork w = lower_gemm_cpu(d, f, threads);
  for (auto& t : w.tasks) t.rows = 0;
  return w;
}

GpuWork lower_gemv_gpu(const GemmDims& d, const GemmFormat& f) {
  require_gemv(d);
  return lower_matvec_gpu(d, f);
}

GpuWork lower_matvec_gpu(const GemmDims& d, const GemmFormat& f) {
  if (d.m < 1) throw std::invalid_argument("a mat-vec kernel needs at least one row");
  GpuWork w;
  for (std::int64_t r0 = 0; r0 < d.m; r0 += kGpuMatVecMaxRows) {
    for (auto& k : lower_gemm_gpu({std::min(kGpuMatVecMaxRows, d.m - r0), d.k, d.n}, f).kernels) {
      k.rows = 0;
      k.streaming = true;
      w.kernels.push_back(std::move(k));
    }
  }
  return w;
}

}  // namespace socsim::kernels
