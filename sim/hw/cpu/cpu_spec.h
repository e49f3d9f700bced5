#pragma once
// Parameters of a big.LITTLE CPU (`cpu:` section of a SoC file): clusters of identical cores.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "sim/config/config_tree.h"
#include "sim/core/time.h"

namespace socsim::hw {

struct CpuClusterSpec {
  std::string name;  // the file's own; prime / mid / little name their class (core_class below); power.cpu_core is keyed by it
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

// What the software stacks ask of the CPU by core class (a prime core for the vendor runtime's graph
// build and LLMS's I/O thread, a mid core for HeteroLLM's flag polling and shadowAttn's budget,
// every core but the little ones for llm.npu's and the optimized engine's threads). When every
// cluster is named prime, mid or little (the shipped files), the names are the classes, whatever a
// what-if does to their clocks (ranks would move the A720s into the little class below 1.15 GHz:
// an 8% clock cut costing 40%). Otherwise the names are the file's own and the classes come from
// speed: clusters ranked by one core's FP32 rate (clock x fp32_flops_per_cycle; a tie keeps the
// file's order), the first is prime; with three or more clusters the last is little (a
// tri-cluster phone's efficiency cores; two clusters are prime and mid, one is all three); the
// others are mid.
enum class CoreClass { kPrime, kMid, kLittle };
CoreClass core_class(const CpuSpec& cpu, std::size_t cluster);
// The first cluster (in the file's order) of that class. Prime: else the fastest; mid: else the
// prime one (a polling thread on the fastest core); little: else nullptr. With one cluster, that
// cluster for every class.
const CpuClusterSpec* cluster_of_class(const CpuSpec& cpu, CoreClass c);

CpuSpec parse_cpu_spec(const config::Section& s);

}  // namespace socsim::hw
