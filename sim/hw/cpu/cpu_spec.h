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
};

struct CpuSpec {
  std::vector<CpuClusterSpec> clusters;
  Tick sleep_granularity = 0;  // usleep() wakes this late at best (HeteroLLM 4.2: 80-100 us)
  Tick poll_interval = 0;      // one check of a shared flag while spinning
  double port_bandwidth = 0;   // cap of the CPU complex's port to DRAM, bytes/s

  const CpuClusterSpec& cluster(std::string_view name) const;  // throws std::out_of_range
};

CpuSpec parse_cpu_spec(const config::Section& s);

}  // namespace socsim::hw
