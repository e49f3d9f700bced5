#pragma once
// Parameters of a Hexagon-class NPU, as read from the `npu:` section of a SoC file. Values are
// hardware descriptions (one set per SoC); see soc_configs/ for their sources.
#include <cstdint>
#include <string>

#include "sim/config/config_tree.h"
#include "sim/core/time.h"

namespace socsim::hw {

struct HmxSpec {
  std::uint32_t units = 0;
  std::uint32_t fp16_tile_rows = 0, fp16_tile_cols = 0;  // 32x32 FP16 = 2 KiB
  std::uint32_t int8_tile_rows = 0, int8_tile_cols = 0;  // INT8 tile shape (SoC-specific)
  std::uint64_t fp16_tile_op_cycles = 0;  // one activation tile x one weight tile, accumulate
  std::uint64_t int8_tile_op_cycles = 0;
  std::uint64_t weight_load_cycles = 0;   // load one weight tile into the array (weight-stationary)
  std::uint64_t output_tile_cycles = 0;   // drain/convert one accumulator tile to TCM
  std::uint32_t accumulators = 0;         // accumulator tiles held in the engine
};

struct HvxSpec {
  std::uint32_t contexts = 0;
  std::uint32_t vector_bytes = 0;          // 128 B = 1024-bit
  std::uint32_t packets_per_cycle = 0;     // per hardware thread
  std::uint32_t vgather_latency_packets = 0;
  std::uint32_t vlut16_packets = 0;
  bool qfloat = false;                     // float results in qf16/qf32 (pre-V79): extra converts
  double read_bandwidth = 0;               // core-path (L2) DRAM read, bytes/s
};

struct DmaSpec {
  double bandwidth = 0;                    // bytes/s cap of the DMA path
  Tick descriptor_overhead = 0;            // fixed cost per 1-D/2-D transfer
  std::uint32_t channels = 0;
};

struct NpuGraphSpec {
  Tick execute_overhead = 0;               // per graph execute (FastRPC-style call)
  Tick op_dispatch = 0;                    // per op node in an executing graph
  double cache_maintenance_bandwidth = 0;  // bytes/s for flushing/invalidating I/O buffers
  Tick build_base = 0, build_per_op = 0;   // graph build (create + add nodes)
  double build_per_mib_ms = 0;             // build time per MiB of tensors, ms
  Tick optimize_base = 0, optimize_per_op = 0;
  double optimize_per_mib_ms = 0;
};

struct NpuSpec {
  std::string impl;
  std::uint64_t clock_hz = 0;
  std::uint32_t scalar_threads = 0;
  std::uint64_t address_space_bytes = 0;   // 32-bit virtual space usable for buffers
  std::uint64_t session_limit_bytes = 0;   // per-session mapping limit
  std::uint64_t tcm_bytes = 0;
  std::uint64_t l2_bytes = 0;
  double port_bandwidth = 0;               // cap of the NPU's port to DRAM, bytes/s
  HmxSpec hmx;
  HvxSpec hvx;
  DmaSpec dma;
  NpuGraphSpec graph;
};

NpuSpec parse_npu_spec(const config::Section& s);

}  // namespace socsim::hw
