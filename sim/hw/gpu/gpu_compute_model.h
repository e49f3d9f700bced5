#pragma once
// How long a kernel's arithmetic takes on an Adreno-class GPU, without a simulator: the GPU model
// (adreno_gpu.h) uses it for the compute half of a kernel, and partition solvers (HeteroLLM's
// GPU/NPU split) call it directly to predict GPU time.
//
// HeteroLLM 3.1 observes that GPU "performance is linear in size: memory-bound for small tensors,
// then FLOPS rise linearly, then plateau once compute-bound". The memory-bound part comes from the
// DRAM model (a kernel takes max(compute, DRAM) time); the rise and plateau are this explicit
// efficiency curve:
//
//   padded       = flops * (rows + half_efficiency_rows) / rows    GEMMs only (rows > 0): few rows
//                                                                  under-fill the workgroup tiles
//   compute time = (padded + half_efficiency_flops)                 small launches cannot fill the
//                  / (compute_units * flops_per_cycle(dtype) * clock * peak_efficiency)     GPU
//   efficiency   = flops / (compute time * peak rate)
//
// For large kernels this is peak_efficiency x F/(F + half_F) x M/(M + half_M): saturating
// hyperbolas, 1/2 at the half-point, rising roughly linearly and then plateauing. The fixed part
// half_F is not scaled by the rows, so more rows never take less time.
#include <vector>

#include "sim/core/time.h"
#include "sim/hw/dtype.h"
#include "sim/hw/gpu/gpu_kernel.h"
#include "sim/hw/gpu/gpu_spec.h"

namespace socsim::hw {

// Vendor peak arithmetic rate (FLOP/s, or OP/s for int8) for a dtype: W4A16 dequantizes the
// weights and computes in FP16, so it runs at the FP16 rate. Throws std::invalid_argument when the
// spec has no rate for it (zero clock, units or per-cycle rate).
double gpu_peak_flops_per_s(const GpuSpec& spec, DType dtype);

// The efficiency curve above, in (0, peak_efficiency]; 0 for a kernel with no arithmetic.
double gpu_efficiency(const GpuSpec& spec, const GpuKernel& k);

// amount / rate_per_s as Ticks, rounded up; a value within rounding noise of a whole tick is that
// tick (1e9 FLOP at 2.5e11 FLOP/s may compute as 4000000000.0000005 ps), so hand-computed timings
// in tests and reports come out exact (the DRAM model's rule for flow durations).
Tick gpu_duration(double amount, double rate_per_s);

// Compute-only time of a kernel (rounded up to a whole picosecond); 0 when flops == 0. Throws
// std::invalid_argument for negative or non-finite flops.
Tick gpu_compute_time(const GpuSpec& spec, const GpuKernel& k);

// A kernel whose weights exceed gpu.max_allocation (one OpenCL buffer; 0 = no limit) runs as one
// kernel per buffer-sized share of its weights (equal column slices).
bool gpu_exceeds_max_allocation(const GpuSpec& spec, const GpuKernel& k);
std::vector<GpuKernel> gpu_allocation_parts(const GpuSpec& spec, const GpuKernel& k);
// The compute-only time of `k` as the GPU runs it: gpu_compute_time, or the sum over its
// allocation parts.
Tick gpu_kernel_compute_time(const GpuSpec& spec, const GpuKernel& k);

}  // namespace socsim::hw
