#pragma once
// Parameters of an Adreno-class GPU (`gpu:` section of a SoC file).
#include <cstdint>
#include <string>

#include "sim/config/config_tree.h"
#include "sim/core/time.h"

namespace socsim::hw {

struct GpuSpec {
  std::string impl;
  std::uint64_t clock_hz = 0;
  std::uint32_t compute_units = 0;
  double fp16_flops_per_cycle = 0;  // per compute unit
  double fp32_flops_per_cycle = 0;
  double int8_ops_per_cycle = 0;
  // Achieved efficiency rises with kernel size ("performance is linear in size", HeteroLLM 3.1):
  // efficiency = peak_efficiency * flops / (flops + half_efficiency_flops)
  //                              * rows / (rows + half_efficiency_rows)   (GEMMs only)
  // The rows factor: a GEMM with few rows under-fills the workgroup tiles (gpu_compute_model.h).
  double peak_efficiency = 0;
  double half_efficiency_flops = 0;
  double half_efficiency_rows = 0;
  Tick submit = 0;          // enqueue a kernel while the queue is busy
  Tick restart = 0;         // extra cost of the first kernel after a sync emptied the queue
  Tick sync_fixed = 0;      // a host synchronization (clFinish) returns no sooner than this after the call
  Tick copy_fixed = 0;      // clEnqueueWriteBuffer fixed cost when a buffer is not shared
  double copy_bandwidth = 0;
  double port_bandwidth = 0;  // cap of the GPU's port to DRAM, bytes/s
  std::uint64_t max_allocation_bytes = 0;
};

GpuSpec parse_gpu_spec(const config::Section& s);

}  // namespace socsim::hw
