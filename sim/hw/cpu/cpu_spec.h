#pragma once
// Parameters of a big.LITTLE CPU (`cpu:` section of a SoC file): clusters of identical cores.
#include <cstdint>
#include <string>
#include <vector>

#include "sim/config/config_tree.h"
#include "sim/core/time.h"

namespace socsim::hw {

struct CpuClusterSpec {
  std::string name;  // prime / mid / little (free names, referenced by strategies and power)
  std::uint32_t cores = 0;
  std::uint64_t clock_hz = 0;
  // Sustained SIMD throughput per core per cycle (NEON/SVE2 with i8mm/dotprod where present).
  double fp32_flops_per_cycle = 0;
  double fp16_flops_per_cycle = 0;
  double int8_ops_per_cycle = 0;
  double core_bandwidth = 0;  // one core's achievable DRAM stream, bytes/s
  // 128-bit ASIMD pipes per core (optional, 0 = not described): the issue rate of vector
  // micro-ops, for kernels costed by their instruction mix (CpuTask::simd_uops_per_op) rather
  // than by a sustained GEMM rate.
  std::uint32_t simd_pipes = 0;
  // ARMv8.2 dot products (SDOT/UDOT); without them kernels emulate each one (given with simd_pipes).
  bool dotprod = true;
};

struct CpuSpec {
  std::vector<CpuClusterSpec> clusters;
  Tick sleep_granularity = 0;  // usleep() wakes this late at best (HeteroLLM 4.2: 80-100 us)
  Tick poll_interval = 0;      // one check of a shared flag while spinning
  double port_bandwidth = 0;   // cap of the CPU complex's port to DRAM, bytes/s
  // Row block of the GEMM micro-kernel: a GEMM's M is rounded up to a multiple of it, so a
  // partial block costs a whole one (e.g. i8mm SMMLA works on 2-row pairs, llama.cpp's
  // repacked Q4_0 kernels on 4-row groups).
  std::uint32_t gemm_tile_rows = 1;
  // Waking the worker threads of a parallel task and joining them (thread-pool barrier), paid
  // once per CpuComplex::run() call.
  Tick task_dispatch = 0;
  // A cluster whose cores all sat idle for idle_threshold has dropped to a low clock and deep idle
  // state; the first task on it pays idle_wakeup (idle exit + governor ramp) before it computes.
  // A run starts from an idle CPU.
  Tick idle_wakeup = 0;
  Tick idle_threshold = 0;

  const CpuClusterSpec& cluster(std::string_view name) const;  // throws std::out_of_range
};

CpuSpec parse_cpu_spec(const config::Section& s);

}  // namespace socsim::hw
