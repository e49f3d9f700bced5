#pragma once
// The `lower` face of a kernel: the work it is for one unit, in that unit's own terms (DESIGN.md
// 1.2). The runtime (sim/runtime) runs these on a hw::Soc; the hardware models decide how long
// they take. Kernels never compute time themselves.
#include <cstdint>
#include <string>
#include <vector>

#include "sim/hw/cpu/cpu_task.h"
#include "sim/hw/gpu/gpu_kernel.h"
#include "sim/hw/npu/gemm_plan.h"

namespace socsim::kernels {

enum class Unit { kNpu, kGpu, kCpu };

// One step on the NPU. Steps of one NpuWork run in order (a static graph's nodes, or a custom
// kernel's phases); overlap inside a step is the unit model's business (HMX GEMM pipeline).
struct NpuStep {
  enum class Kind { kGraphCall, kHmxGemm, kHvx, kDma, kHvxStream, kDmaDuringHvx };
  Kind kind = Kind::kHvx;
  std::string name;
  std::uint32_t graph_ops = 0;                        // kGraphCall: nodes in the executed graph
  hw::GemmShape gemm;                                 // kHmxGemm
  hw::OperandHome home = hw::OperandHome::kDram;      // kHmxGemm
  double packets = 0;                                 // kHvx: VLIW packets in total
  std::uint32_t threads = 1;                          // kHvx: hardware threads sharing them
  std::uint64_t bytes = 0, transfers = 0;             // kDma; kHvxStream: bytes streamed by `threads`
                                                      // through L2 while computing `packets`

  static NpuStep graph_call(std::string n, std::uint32_t ops) {
    NpuStep s; s.kind = Kind::kGraphCall; s.name = std::move(n); s.graph_ops = ops; return s;
  }
  static NpuStep hmx_gemm(std::string n, hw::GemmShape g, hw::OperandHome h = hw::OperandHome::kDram) {
    NpuStep s; s.kind = Kind::kHmxGemm; s.name = std::move(n); s.gemm = g; s.home = h; return s;
  }
  static NpuStep hvx(std::string n, double packets, std::uint32_t threads) {
    NpuStep s; s.kind = Kind::kHvx; s.name = std::move(n); s.packets = packets; s.threads = threads; return s;
  }
  static NpuStep dma(std::string n, std::uint64_t bytes, std::uint64_t transfers) {
    NpuStep s; s.kind = Kind::kDma; s.name = std::move(n); s.bytes = bytes; s.transfers = transfers; return s;
  }
  // HVX work that streams its operand from DRAM as it computes (a GEMV over weights that do not
  // fit TCM): time is the longer of the stream and the packets.
  static NpuStep hvx_stream(std::string n, std::uint64_t bytes, double packets, std::uint32_t threads) {
    NpuStep s; s.kind = Kind::kHvxStream; s.name = std::move(n); s.bytes = bytes; s.packets = packets; s.threads = threads; return s;
  }
  // A DMA into TCM (`bytes` in `transfers`) issued before HVX work on `threads` and running beside
  // it (a double-buffered kernel prefetching its next block): done when both are.
  static NpuStep dma_during_hvx(std::string n, std::uint64_t bytes, std::uint64_t transfers, double packets, std::uint32_t threads) {
    NpuStep s; s.kind = Kind::kDmaDuringHvx; s.name = std::move(n); s.bytes = bytes; s.transfers = transfers; s.packets = packets;
    s.threads = threads; return s;
  }
};

struct NpuWork {
  std::vector<NpuStep> steps;
};

// GPU kernels, enqueued in order on the GPU's queue.
struct GpuWork {
  std::vector<hw::GpuKernel> kernels;
};

// CPU tasks, run one after another, each over `threads` of the fastest cores.
struct CpuWork {
  std::vector<hw::CpuTask> tasks;
  std::uint32_t threads = 1;
};

}  // namespace socsim::kernels
