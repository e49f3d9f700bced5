#pragma once
// Parameters of a Hexagon-class NPU, as read from the `npu:` section of a SoC file. Values are
// hardware descriptions (one set per SoC); see soc_configs/ for their sources.
#include <cstdint>
#include <string>

#include "sim/config/config_tree.h"
#include "sim/core/time.h"

namespace socsim::hw {

// HMX works on tiles: an activation tile is tile_rows x depth, a weight tile depth x tile_rows,
// an output tile tile_rows x tile_rows. FP16: 32x32x32 (2 KiB operands); INT8 packs a deeper
// reduction into the same 2 KiB.
struct HmxSpec {
  std::uint32_t units = 0;
  std::uint32_t tile_rows = 0;            // M and N extent of a tile
  std::uint32_t fp16_tile_depth = 0;      // K extent of an FP16 tile
  std::uint32_t int8_tile_depth = 0;      // K extent of an INT8 tile
  std::uint64_t fp16_tile_op_cycles = 0;  // one activation tile x one weight tile, accumulated
  std::uint64_t int8_tile_op_cycles = 0;
  std::uint64_t weight_load_cycles = 0;   // load one weight tile from TCM into the array
  std::uint64_t output_tile_cycles = 0;   // drain one accumulator tile to TCM (with column scale)
};

struct HvxSpec {
  std::uint32_t contexts = 0;
  std::uint32_t vector_bytes = 0;          // 128 B = 1024-bit
  std::uint32_t packets_per_cycle = 0;     // per hardware thread
  std::uint32_t vgather_latency_packets = 0;  // also the spacing of one thread's back-to-back gathers
  std::uint32_t vlut16_packets = 0;
  bool qfloat = false;                     // float results in qf16/qf32 (pre-V79): extra converts
  double fp16_mac_packets = 0;             // packets per vector FP16 multiply-accumulate in a GEMM loop
  double read_bandwidth = 0;               // one thread's core-path (L2) DRAM stream, bytes/s
  // Resources that take shift-class instructions (every qfloat add and conversion): 1 through V75,
  // 2 from V79 ("the permute resource allows shift resource instructions", HVX PRM rev. AA).
  std::uint32_t shift_resources = 1;
};

struct DmaSpec {
  double bandwidth = 0;                    // bytes/s cap of the DMA path
  Tick descriptor_overhead = 0;            // fixed cost per 1-D/2-D transfer
  std::uint32_t channels = 0;
};

// How the vendor runtime stores activation tensors for HMX: NHWC in "croutons", blocks of
// crouton_height x crouton_width positions x 32 channels (8h8w32c for 8-bit, 8h4w32c for 16-bit
// data: TVM's Hexagon layouts nhwc-8h8w32c and nhwc-8h2w32c2w). A tensor's height and width are
// each padded to whole croutons, so [1024, 1, C] holds 8x the positions of [32, 32, C] in 8-bit.
struct NpuLayoutSpec {
  std::uint32_t crouton_height = 0;
  std::uint32_t crouton_width_int8 = 0;
  std::uint32_t crouton_width_fp16 = 0;
};

struct NpuGraphSpec {
  Tick execute_overhead = 0;               // per graph execute (FastRPC-style call)
  Tick op_dispatch = 0;                    // per op node in an executing graph
  // A graph whose input and output tensors are the client's own buffers (not registered shared
  // memory) has them synchronized on every execute: the RPC layer maps them and maintains the
  // caches over their bytes (or copies them into its own buffers). Per execute: client_io_call
  // plus the tensors' bytes at client_io_bandwidth. Which graphs pay it is the software stack's
  // choice (runtime::Job::npu_client_io).
  Tick client_io_call = 0;
  double client_io_bandwidth = 0;          // bytes/s
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
  // Sessions (process domains) one process may open on the NPU, each with its own address space:
  // a model larger than one is split over several by layers (llama.cpp's Hexagon backend).
  std::uint32_t max_sessions = 1;
  std::uint64_t tcm_bytes = 0;
  double port_bandwidth = 0;               // cap of the NPU's whole port to DRAM (DMA + core), bytes/s
  double core_bandwidth = 0;               // cap of the core (HVX/L2) path, all threads, bytes/s
  HmxSpec hmx;
  HvxSpec hvx;
  DmaSpec dma;
  NpuLayoutSpec layout;
  NpuGraphSpec graph;
};

NpuSpec parse_npu_spec(const config::Section& s);

}  // namespace socsim::hw
