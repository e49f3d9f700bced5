#pragma once
// What a run of NPU work alone leaves behind, and the memo of such runs (sim/core/run_memo.h;
// sim/runtime/npu_alone_replay.h says when a replay is exact).
#include <cstdint>
#include <vector>

#include "sim/core/resource.h"
#include "sim/core/run_memo.h"
#include "sim/core/statistics.h"
#include "sim/core/time.h"
#include "sim/hw/memory/dram_model.h"

namespace socsim::hw {

// What one run of NPU work alone left behind: its duration and every statistic of the NPU and of
// its DRAM ports over it, as if it had started at time 0.
struct NpuRunRecord {
  Tick duration = 0;
  std::vector<Resource::Stats> units;  // scalar threads, HVX, HMX, DMA, RPC
  BusyTime busy, hvx_active, hmx_active;
  std::uint64_t dma_bytes = 0, hmx_cycles = 0;
  DramModel::Stats dram;
  std::vector<DramModel::PortStats> ports;  // npu, npu.dma, npu.core, npu.core.hvxN
  std::vector<Tick> node_time;              // a graph's: each node's time from start to done
  std::uint64_t events = 0;                 // the recording simulator's, its process's start excluded
};

// Runs of NPU work alone, by the work's signature (npu_alone_replay.h: npu_work_signature).
using NpuRunMemo = RunMemo<NpuRunRecord>;

}  // namespace socsim::hw
