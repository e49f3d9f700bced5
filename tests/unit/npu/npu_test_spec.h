#pragma once
// A small synthetic NPU for hand-computable timings: 1 GHz (1 cycle = 1000 ps), 32x32 tiles,
// 2 KiB operand tiles, 64 KiB TCM, DMA 2 GB/s with 100 ns per transfer.
#include "sim/hw/npu/npu_spec.h"

namespace socsim::hw::test {

inline NpuSpec small_npu() {
  NpuSpec n;
  n.impl = "hexagon";
  n.clock_hz = 1'000'000'000;
  n.scalar_threads = 4;
  n.address_space_bytes = 4ULL << 30;
  n.session_limit_bytes = 2ULL << 30;
  n.tcm_bytes = 64 * 1024;
  n.port_bandwidth = 4e9;
  n.core_bandwidth = 3e9;
  n.hmx = {1, 32, 32, 64, 5, 5, 2, 8};
  n.hvx = {2, 128, 1, 36, 2, true, 4.0, 1e9};
  n.dma = {2e9, 100 * kNanosecond, 1};
  n.layout = {8, 8, 4};  // 8h8w32c (int8), 8h4w32c (fp16) croutons
  n.graph = {250 * kMicrosecond, 40 * kMicrosecond, 1 * kMillisecond, 2e9, 0, 1 * kMillisecond, 0.0, 0, 20 * kMillisecond, 0.0};
  return n;
}

}  // namespace socsim::hw::test
