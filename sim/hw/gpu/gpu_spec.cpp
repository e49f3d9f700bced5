#include "sim/hw/gpu/gpu_spec.h"

namespace socsim::hw {

using config::Quantity;

GpuSpec parse_gpu_spec(const config::Section& s) {
  GpuSpec g;
  g.impl = s.choice("impl", {"adreno"});  // the GPU models registered so far
  g.clock_hz = static_cast<std::uint64_t>(s.positive_quantity("clock", Quantity::kFrequency));
  g.compute_units = static_cast<std::uint32_t>(s.integer("compute_units", 1, 1024));
  g.fp16_flops_per_cycle = s.number("fp16_flops_per_cycle", 1, 1e6);
  g.fp32_flops_per_cycle = s.number("fp32_flops_per_cycle", 1, 1e6);
  g.int8_ops_per_cycle = s.number("int8_ops_per_cycle", 1, 1e6);
  g.peak_efficiency = s.number("peak_efficiency", 0.01, 1.0);
  g.half_efficiency_flops = s.number("half_efficiency_flops", 0, 1e15);
  g.half_efficiency_rows = s.number("half_efficiency_rows", 0, 1e6);
  g.submit = s.time("submit");
  g.restart = s.time("restart");
  g.sync_fixed = s.time("sync_fixed");
  g.copy_fixed = s.time("copy_fixed");
  g.copy_bandwidth = s.positive_quantity("copy_bandwidth", Quantity::kBandwidth);
  g.port_bandwidth = s.positive_quantity("port_bandwidth", Quantity::kBandwidth);
  // CL_DEVICE_MAX_MEM_ALLOC_SIZE: the OpenCL specification's floor is 1 MiB (embedded profile).
  // Below it a large GEMM would run as millions of kernels (one per buffer).
  g.max_allocation_bytes = static_cast<std::uint64_t>(s.quantity("max_allocation", Quantity::kSize, 1048576.0, 1099511627776.0));
  return g;
}

}  // namespace socsim::hw
