#include "kernels/gemm/outlier_gemm.h"

#include <stdexcept>

namespace socsim::kernels {

void add_outlier_gemm(const SparseOutliers& outliers, const Tensor& w, float w_scale, Tensor& y) {
  if (w.rank() != 2 || w.type() != ElemType::kI8 || w.dim(0) != outliers.cols) {
    throw std::invalid_argument("outlier GEMM weights must be int8 with one row per input channel");
  }
  if (y.rank() != 2 || y.type() != ElemType::kF32 || y.dim(0) != outliers.rows || y.dim(1) != w.dim(1)) {
    throw std::invalid_argument("outlier GEMM output must be float32 [rows x n]");
  }
  const std::int64_t n = w.dim(1);
  const auto wq = w.data<std::int8_t>();
  auto out = y.data<float>();
  for (const auto& e : outliers.entries) {
    const std::int8_t* row = wq.data() + static_cast<std::int64_t>(e.col) * n;
    float* dst = out.data() + static_cast<std::int64_t>(e.row) * n;
    for (std::int64_t j = 0; j < n; ++j) dst[j] += e.value * (static_cast<float>(row[j]) * w_scale);
  }
}

CpuWork lower_outlier_gemm_cpu(std::int64_t m, std::int64_t channels, std::int64_t n, double weight_bytes,
                               std::uint32_t threads) {
  const double md = static_cast<double>(m), cd = static_cast<double>(channels), nd = static_cast<double>(n);
  hw::CpuTask t;
  t.name = "outlier_gemm";
  t.ops = 2.0 * md * cd * nd;
  t.dtype = hw::DType::kFp32;
  t.dram_bytes = static_cast<std::uint64_t>(cd * nd * weight_bytes + md * cd * 4 + 2 * md * nd * 4);
  t.rows = static_cast<std::uint64_t>(m);
  return CpuWork{{t}, threads};
}

}  // namespace socsim::kernels
