#pragma once
// Unit specs for the kernels' `lower` tests, shared by the softmax/attention/elementwise/topk
// tests. Two NPUs so every HVX count is checked with and without the qfloat conversions:
//   v75(): 4 HVX contexts, 128 B vectors, vgather 36 packets, qfloat (pre-V79), 8 MiB TCM;
//   v79(): same but vgather 24 packets, IEEE float results (no conversion packets) and two
//          resources that take shift-class instructions.
#include "sim/hw/npu/npu_spec.h"

namespace socsim::kernels::test {

inline hw::NpuSpec v75() {
  hw::NpuSpec n;
  n.impl = "hexagon";
  n.clock_hz = 1'000'000'000;
  n.scalar_threads = 6;
  n.address_space_bytes = 4ULL << 30;
  n.session_limit_bytes = 2ULL << 30;
  n.tcm_bytes = 8ULL << 20;
  n.port_bandwidth = 60e9;
  n.core_bandwidth = 30e9;
  n.hmx = {1, 32, 32, 64, 5, 5, 2, 8};
  n.hvx = {4, 128, 1, 36, 2, true, 3.9, 26e9};
  n.dma = {60e9, 160 * kNanosecond, 1};
  return n;
}

inline hw::NpuSpec v79() {
  hw::NpuSpec n = v75();
  n.hvx.vgather_latency_packets = 24;
  n.hvx.qfloat = false;
  n.hvx.shift_resources = 2;
  return n;
}

}  // namespace socsim::kernels::test
