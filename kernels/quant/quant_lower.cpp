#include "kernels/quant/quant_lower.h"

#include <bit>
#include <stdexcept>

namespace socsim::kernels {

namespace {

std::uint64_t ceil_div(std::uint64_t a, std::uint64_t b) { return (a + b - 1) / b; }

std::uint64_t count(std::int64_t elements) {
  if (elements < 0) throw std::invalid_argument("element count must be >= 0");
  return static_cast<std::uint64_t>(elements);
}

hw::CpuTask task(const char* name, double ops_per_elem, std::uint64_t e, std::uint64_t bytes) {
  return {name, ops_per_elem * static_cast<double>(e), hw::DType::kFp32, bytes, 0};
}

}  // namespace

CpuWork lower_quantize_cpu(std::int64_t elements, bool compute_scale, std::uint32_t threads) {
  const auto e = count(elements);
  CpuWork w{{}, threads};
  if (compute_scale) w.tasks.push_back(task("minmax_scale", 2, e, 4 * e));
  w.tasks.push_back(task("quantize_i8", 4, e, 5 * e));
  return w;
}

CpuWork lower_dequantize_cpu(std::int64_t elements, std::uint32_t threads) {
  const auto e = count(elements);
  return {{task("dequantize_i32", 2, e, 8 * e)}, threads};
}

GpuWork lower_quantize_gpu(std::int64_t elements) {
  const auto e = count(elements);
  return {{{"quantize_i8", 4.0 * static_cast<double>(e), hw::DType::kFp16, 3 * e, 0, true}}};
}

GpuWork lower_dequantize_gpu(std::int64_t elements) {
  const auto e = count(elements);
  return {{{"dequantize_i32", 2.0 * static_cast<double>(e), hw::DType::kFp16, 6 * e, 0, true}}};
}

CpuWork lower_outlier_split_cpu(std::int64_t elements, std::int64_t outliers, std::uint32_t threads) {
  const auto e = count(elements), o = count(outliers);
  return {{task("outlier_split", 2, e, 8 * e + 12 * o)}, threads};
}

NpuWork lower_quantize_npu(std::int64_t elements, bool compute_scale, const hw::NpuSpec& spec) {
  const auto e = count(elements);
  const double units = static_cast<double>(ceil_div(e, spec.hvx.vector_bytes));
  NpuWork w;
  if (compute_scale) {
    const double reduce = 2.0 * std::bit_width(spec.hvx.vector_bytes / 2 - 1);  // log2 of the FP16 lanes
    w.steps.push_back(NpuStep::hvx("minmax_scale", 4 * units + reduce, spec.hvx.contexts));
  }
  w.steps.push_back(NpuStep::hvx("quantize_i8", units * (spec.hvx.qfloat ? 7 : 5), spec.hvx.contexts));
  return w;
}

NpuWork lower_dequantize_npu(std::int64_t elements, const hw::NpuSpec& spec) {
  const auto e = count(elements);
  const double vectors = static_cast<double>(ceil_div(e, spec.hvx.vector_bytes / 4));
  NpuWork w;
  w.steps.push_back(NpuStep::hvx("dequantize_i32", vectors * (spec.hvx.qfloat ? 3 : 2), spec.hvx.contexts));
  return w;
}

}  // namespace socsim::kernels
