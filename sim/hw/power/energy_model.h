#pragma once
// Energy of a run as a pure function of what the units did (DESIGN.md 1.1): per unit, active
// power x busy time + idle power x the rest of the run; per CPU core likewise, with stalled power
// for the busy time it waited on DRAM; DRAM and storage
// per byte moved plus their background power; the always-on rest of the SoC for the whole run.
// No simulation state: the runtime fills an Activity from the unit statistics, and tests or
// solvers can evaluate hypothetical activities.
#include <cstdint>
#include <map>
#include <string>

#include "sim/core/time.h"
#include "sim/hw/power/power_spec.h"

namespace socsim::hw {

struct UnitActivity {
  Tick busy = 0;
};

struct Activity {
  Tick duration = 0;  // wall time of the run
  UnitActivity npu, gpu;
  std::map<std::string, Tick> cpu_core_busy;       // core-time per cluster name (sum over its cores)
  std::map<std::string, Tick> cpu_core_stalled;    // the part of cpu_core_busy spent waiting on DRAM
  std::map<std::string, std::uint32_t> cpu_cores;  // cores per cluster (for idle power); a cluster
                                                   // absent here has no cores in this run
  std::uint64_t dram_bytes = 0, storage_read_bytes = 0, storage_write_bytes = 0;
};

struct EnergyBreakdown {
  double npu_j = 0, gpu_j = 0, cpu_j = 0, dram_j = 0, storage_j = 0, base_j = 0, total_j = 0;
  double average_power_w = 0;  // total_j / duration; 0 for a zero-length run
  std::map<std::string, double> cpu_cluster_j;
};

// Throws std::invalid_argument when a busy time exceeds what the run allows (npu/gpu busy >
// duration, a cluster's core-time > cores x duration, stalled core-time > busy), when a cluster
// name is not in
// p.cpu_core, or when a busy cluster has no core count.
EnergyBreakdown compute_energy(const PowerSpec& p, const Activity& a);

}  // namespace socsim::hw
