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
  // flops over the padded work plus the size ramp's fixed part (gpu_compute_time).
  const double padded = k.rows > 0 ? k.flops / saturation(static_cast<double>(k.rows), spec.half_efficiency_rows) : k.flops;
  return spec.peak_efficiency * k.flops / (padded + spec.half_efficiency_flops);
}

Tick gpu_compute_time(const GpuSpec& spec, const GpuKernel& k) {
  if (!(k.flops >= 0) || !std::isfinite(k.flops)) {
    throw std::invalid_argument("gpu: kernel '" + k.name + "' has negative or non-finite flops");
  }
  if (k.flops == 0) return 0;
  if (!(spec.peak_efficiency > 0)) throw std::invalid_argument("gpu: peak_efficiency must be > 0");
  if (k.streaming) return gpu_duration(k.flops, gpu_peak_flops_per_s(spec, k.dtype) * spec.peak_efficiency);
  // Few-row tiles are half empty: the kernel computes its rows padded to the tile, M + half rows
  // for M. The size ramp (tile set-up, partial waves) then applies to that padded work:
  //   t = (F (M + Mh) / M + Fh) / (peak x peak_efficiency),
  // the form of gpu_efficiency's F/(F + Fh) x M/(M + Mh) for large kernels, but the fixed part Fh
  // is not scaled by the rows: a 2-row kernel costs about as much as a 1-row one, not 57/2 times
  // the fixed part (it did: a 2-token GPU prefill took 78 ms against 12 ms for one token).
  const double padded = k.rows > 0 ? k.flops / saturation(static_cast<double>(k.rows), spec.half_efficiency_rows) : k.flops;
  return gpu_duration(padded + spec.half_efficiency_flops, gpu_peak_flops_per_s(spec, k.dtype) * spec.peak_efficiency);
}

bool gpu_exceeds_max_allocation(const GpuSpec& spec, const GpuKernel& k) {
  return spec.max_allocation_bytes != 0 && k.weight_bytes > spec.max_allocation_bytes;
}

std::vector<GpuKernel> gpu_allocation_parts(const GpuSpec& spec, const GpuKernel& k) {
  if (!gpu_exceeds_max_allocation(spec, k)) return {k};
  const std::uint64_t limit = spec.max_allocation_bytes;
  // Equal column slices, each of whose weights fit one buffer. Every part re-reads the whole
  // activation; that is neglected (activations are far smaller than weights this large).
  const std::uint64_t n = (k.weight_bytes + limit - 1) / limit;
  const double share = 1.0 / static_cast<double>(n);
  std::vector<GpuKernel> parts(n, k);
  for (std::uint64_t i = 0; i < n; ++i) {
    GpuKernel& p = parts[i];
    p.name = k.name + " part " + std::to_string(i + 1) + "/" + std::to_string(n);
    p.flops = k.flops * share;
    // Byte counts split exactly: the first (bytes mod n) parts take one byte more.
    p.dram_bytes = k.dram_bytes / n + (i < k.dram_bytes % n ? 1 : 0);
    p.weight_bytes = k.weight_bytes / n + (i < k.weight_bytes % n ? 1 : 0);
  }
  return parts;
}

Tick gpu_kernel_compute_time(const GpuSpec& spec, const GpuKernel& k) {
  if (!gpu_exceeds_max_allocation(spec, k)) return gpu_compute_time(spec, k);  // the common case builds no parts
  Tick sum = 0;
  for (const GpuKernel& p : gpu_allocation_parts(spec, k)) sum += gpu_compute_time(spec, p);
  return sum;
}

}  // namespace socsim::hw
