#pragma once
// A small synthetic GPU for the GPU tests, with round numbers so timings can be computed by hand
// (not the SoC file: calibration may change those values).
//   FP16 peak = 4 CU x 250 FLOP/cycle x 1 GHz = 1e12 FLOP/s; FP32 5e11; INT8 2e12 OP/s.
//   efficiency = 0.5 * flops / (flops + 1e9) * rows / (rows + 64)
//   submit 15 us, restart 75 us, copy 400 us + bytes at 16 GB/s, DRAM port 40 GB/s.
#include "sim/core/time.h"
#include "sim/hw/gpu/gpu_spec.h"

namespace socsim::hw::testing {

constexpr double kGB = 1e9;  // bytes/s per GB/s

inline GpuSpec small_gpu_spec() {
  GpuSpec g;
  g.impl = "adreno";
  g.clock_hz = 1'000'000'000;
  g.compute_units = 4;
  g.fp16_flops_per_cycle = 250;
  g.fp32_flops_per_cycle = 125;
  g.int8_ops_per_cycle = 500;
  g.peak_efficiency = 0.5;
  g.half_efficiency_flops = 1e9;
  g.half_efficiency_rows = 64;
  g.submit = 15 * kMicrosecond;
  g.restart = 75 * kMicrosecond;
  g.copy_fixed = 400 * kMicrosecond;
  g.copy_bandwidth = 16 * kGB;
  g.port_bandwidth = 40 * kGB;
  g.max_allocation_bytes = 1ull << 30;
  return g;
}

}  // namespace socsim::hw::testing
