#include "sim/hw/gpu/gpu_compute_model.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace socsim::hw {

namespace {

// x / (x + half): 1/2 at x == half; a zero half-point means the factor is always 1.
double saturation(double x, double half) { return half > 0 ? x / (x + half) : 1.0; }

double per_cycle(const GpuSpec& spec, DType dtype) {
  switch (dtype) {
    case DType::kFp16:
    case DType::kW4A16:  // weights dequantized to FP16 in registers, FP16 math
      return spec.fp16_flops_per_cycle;
    case DType::kFp32:
      return spec.fp32_flops_per_cycle;
    case DType::kInt8:
      return spec.int8_ops_per_cycle;
  }
  throw std::invalid_argument("gpu: unknown dtype");
}

}  // namespace

Tick gpu_duration(double amount, double rate_per_s) {
  if (!(amount >= 0) || !(rate_per_s > 0)) throw std::invalid_argument("gpu: negative amount or non-positive rate");
  const double ps = amount * 1e12 / rate_per_s;
  if (!(ps < 1.8e19)) throw TimeOverflow("gpu: duration overflows 64-bit picoseconds");
  const double nearest = std::round(ps);
  if (std::fabs(ps - nearest) <= std::max(1e-6, ps * 1e-12)) return static_cast<Tick>(nearest);
  return static_cast<Tick>(std::ceil(ps));
}

double gpu_peak_flops_per_s(const GpuSpec& spec, DType dtype) {
  const double rate = static_cast<double>(spec.compute_units) * per_cycle(spec, dtype) *
                      static_cast<double>(spec.clock_hz);
  if (!(rate > 0) || !std::isfinite(rate)) {
    throw std::invalid_argument("gpu: no " + std::string(dtype_name(dtype)) +
                                " throughput (clock, compute_units and per-cycle rate must be > 0)");
  }
  return rate;
}

double gpu_efficiency(const GpuSpec& spec, const GpuKernel& k) {
  if (!(k.flops > 0)) return 0.0;
  // The size ramp belongs to kernels that tile their work over the compute units (tile set-up,
  // partial waves, few-row tiles half empty). Streaming kernels (GEMV, elementwise) run at the
  // sustained rate and are normally bound by memory instead.
  if (k.streaming) return spec.peak_efficiency;
  double e = spec.peak_efficiency * saturation(k.flops, spec.half_efficiency_flops);
  if (k.rows > 0) e *= saturation(static_cast<double>(k.rows), spec.half_efficiency_rows);
  return e;
}

Tick gpu_compute_time(const GpuSpec& spec, const GpuKernel& k) {
  if (!(k.flops >= 0) || !std::isfinite(k.flops)) {
    throw std::invalid_argument("gpu: kernel '" + k.name + "' has negative or non-finite flops");
  }
  if (k.flops == 0) return 0;
  const double efficiency = gpu_efficiency(spec, k);
  if (!(efficiency > 0)) throw std::invalid_argument("gpu: peak_efficiency must be > 0");
  return gpu_duration(k.flops, gpu_peak_flops_per_s(spec, k.dtype) * efficiency);
}

}  // namespace socsim::hw
