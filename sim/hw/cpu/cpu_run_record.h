#pragma once
// What one CPU task run alone left behind (CpuComplex replays it: cpu_complex.h): its duration and
// every statistic of its clusters and of their DRAM ports over it, as if it had started at time 0
// on idle clusters whose lowest-numbered cores it took.
#include <cstdint>
#include <vector>

#include "sim/core/resource.h"
#include "sim/core/run_memo.h"
#include "sim/core/statistics.h"
#include "sim/core/time.h"
#include "sim/hw/memory/dram_model.h"

namespace socsim::hw {

struct CpuRunRecord {
  // One cluster's part, in the order of the task's parts.
  struct Cluster {
    Resource::Stats cores;                          // the cluster's core Resource
    std::vector<BusyTime> core_busy;                // cores 0 .. threads-1
    std::vector<DramModel::PortStats> core_ports;   // their DRAM ports
    BusyTime wall;                                  // >= 1 core of the cluster busy
    Tick stalled = 0;                               // core-time waiting on DRAM after the compute
    Tick idle_since = 0;                            // when its last core was given back
  };
  Tick duration = 0;
  std::vector<Cluster> clusters;
  Tick stalled = 0;  // over every part (what the caller's counter gets)
  DramModel::Stats dram;
  DramModel::PortStats cpu_port;  // the CPU's port
  std::uint64_t events = 0;       // the recording simulator's, its process's start excluded
};

using CpuRunMemo = RunMemo<CpuRunRecord>;

}  // namespace socsim::hw
