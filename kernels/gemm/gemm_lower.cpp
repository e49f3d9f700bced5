#include "kernels/gemm/gemm_lower.h"

#include <stdexcept>
#include <string>

namespace socsim::kernels {

namespace {

struct Traffic {
  double weights = 0, activations = 0, outputs = 0;
  std::uint64_t total() const { return static_cast<std::uint64_t>(weights + activations + outputs); }
};

// Bytes per element of weights, activations and outputs for dense dtypes.
Traffic dense_traffic(const GemmDims& d, double w, double a, double c) {
  const double m = static_cast<double>(d.m), k = static_cast<double>(d.k), n = static_cast<double>(d.n);
  return {k * n * w, m * k * a, m * n * c};
}

Traffic block_traffic(const GemmDims& d, BlockFormat f) {
  Traffic t = dense_traffic(d, 0, 2, 2);
  t.weights = static_cast<double>(block_weight_bytes(d.k, d.n, f));
  return t;
}

Traffic group_traffic(const GemmDims& d, std::int64_t group) {
  if (group < 1) throw std::invalid_argument("quantization group must have at least one row");
  Traffic t = dense_traffic(d, 1, 1, 4);
  t.weights += 4.0 * static_cast<double>(d.n) * static_cast<double>((d.k + group - 1) / group);
  return t;
}

hw::CpuTask cpu_task(const std::string& name, const GemmDims& d, hw::DType dtype, const Traffic& t) {
  return {name, d.flops(), dtype, t.total(), static_cast<std::uint64_t>(d.m)};
}

hw::GpuKernel gpu_kernel(const std::string& name, const GemmDims& d, hw::DType dtype, const Traffic& t) {
  hw::GpuKernel k{name, d.flops(), dtype, t.total(), d.m == 1 ? 0 : static_cast<std::uint64_t>(d.m)};
  k.weight_bytes = static_cast<std::uint64_t>(t.weights);
  return k;
}

// The per-group float reduction: a multiply and an add per output per group.
double group_reduction_ops(const GemmDims& d, std::int64_t group) {
  return 2.0 * static_cast<double>(d.m) * static_cast<double>(d.n) * static_cast<double>((d.k + group - 1) / group);
}

}  // namespace

std::uint64_t block_weight_bytes(std::int64_t k, std::int64_t n, BlockFormat f) {
  return static_cast<std::uint64_t>(n * ((k + kQuantBlock - 1) / kQuantBlock) * block_bytes(f));
}

CpuWork lower_gemm_i8_cpu(const GemmDims& d, std::uint32_t threads) {
  return {{cpu_task("gemm_i8", d, hw::DType::kInt8, dense_traffic(d, 1, 1, 4))}, threads};
}
GpuWork lower_gemm_i8_gpu(const GemmDims& d) { return {{gpu_kernel("gemm_i8", d, hw::DType::kInt8, dense_traffic(d, 1, 1, 4))}}; }

CpuWork lower_gemm_f32_cpu(const GemmDims& d, std::uint32_t threads) {
  return {{cpu_task("gemm_f32", d, hw::DType::kFp32, dense_traffic(d, 4, 4, 4))}, threads};
}
GpuWork lower_gemm_f32_gpu(const GemmDims& d) { return {{gpu_kernel("gemm_f32", d, hw::DType::kFp32, dense_traffic(d, 4, 4, 4))}}; }

CpuWork lower_gemm_f16_cpu(const GemmDims& d, std::uint32_t threads) {
  return {{cpu_task("gemm_f16", d, hw::DType::kFp16, dense_traffic(d, 2, 2, 2))}, threads};
}
GpuWork lower_gemm_f16_gpu(const GemmDims& d) { return {{gpu_kernel("gemm_f16", d, hw::DType::kFp16, dense_traffic(d, 2, 2, 2))}}; }

CpuWork lower_gemm_w4a16_cpu(const GemmDims& d, BlockFormat f, std::uint32_t threads) {
  const auto dtype = f == BlockFormat::kQ4_0 ? hw::DType::kW4A16 : hw::DType::kInt8;
  return {{cpu_task(std::string("gemm_") + block_format_name(f), d, dtype, block_traffic(d, f))}, threads};
}
GpuWork lower_gemm_w4a16_gpu(const GemmDims& d, BlockFormat f) {
  const auto dtype = f == BlockFormat::kQ4_0 ? hw::DType::kW4A16 : hw::DType::kFp16;
  return {{gpu_kernel(std::string("gemm_") + block_format_name(f), d, dtype, block_traffic(d, f))}};
}

CpuWork lower_gemm_i8_per_group_cpu(const GemmDims& d, std::int64_t group, std::uint32_t threads) {
  CpuWork w{{cpu_task("gemm_i8_groups", d, hw::DType::kInt8, group_traffic(d, group))}, threads};
  w.tasks.push_back({"gemm_i8_group_reduce", group_reduction_ops(d, group), hw::DType::kFp32, 0, 0});
  return w;
}
GpuWork lower_gemm_i8_per_group_gpu(const GemmDims& d, std::int64_t group) {
  GpuWork w{{gpu_kernel("gemm_i8_groups", d, hw::DType::kInt8, group_traffic(d, group))}};
  w.kernels.push_back({"gemm_i8_group_reduce", group_reduction_ops(d, group), hw::DType::kFp32, 0, 0});
  return w;
}

}  // namespace socsim::kernels
