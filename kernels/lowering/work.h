#pragma once
// The `lower` face of a kernel: the work it is for one unit, in that unit's own terms (DESIGN.md
// 1.2). The runtime (sim/runtime) runs these on a hw::Soc; the hardware models decide how long
// they take. Kernels never compute time themselves.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "sim/core/host_memory.h"
#include "sim/hw/cpu/cpu_task.h"
#include "sim/hw/gpu/gpu_kernel.h"
#include "sim/hw/npu/gemm_plan.h"

namespace socsim::kernels {

enum class Unit { kNpu, kGpu, kCpu };

// One step on the NPU. Steps of one NpuWork run in order (a static graph's nodes, or a custom
// kernel's phases) unless the work declares a software pipeline (NpuWork::stages); overlap inside
// a step is the unit model's business (HMX GEMM pipeline). The step's kind names its engine (DMA,
// HVX contexts, HMX, the RPC channel) and `threads` how many hardware threads issue it.
struct NpuStep {
  enum class Kind { kGraphCall, kHmxGemm, kHvx, kDma, kHvxStream, kHmxCycles };
  Kind kind = Kind::kHvx;
  std::string name;
  std::uint32_t graph_ops = 0;                        // kGraphCall: nodes in the executed graph
  hw::GemmShape gemm;                                 // kHmxGemm
  hw::OperandHome home = hw::OperandHome::kDram;      // kHmxGemm
  std::uint64_t hmx_cycles = 0;                       // kHmxCycles: HMX work on operands already in
                                                      // TCM (GEMMs merged by npu_step_coalescing.h)
  double packets = 0;                                 // kHvx: VLIW packets in total
  std::uint32_t threads = 1;                          // kHvx: hardware threads sharing them
  std::uint64_t bytes = 0, transfers = 0;             // kDma; kHvxStream: bytes streamed by `threads`
                                                      // through L2 while computing `packets`;
                                                      // kGraphCall: the graph's input and output
                                                      // tensors' bytes (its I/O, if client buffers)
  // Pipelined work only: the stage this step belongs to and the iteration (block, chunk) it works
  // on. Steps of one (iteration, stage) run in their order in `steps`.
  std::uint32_t stage = 0;
  std::uint32_t iteration = 0;

  NpuStep& at(std::uint32_t iter, std::uint32_t stg) & {
    iteration = iter;
    stage = stg;
    return *this;
  }
  NpuStep&& at(std::uint32_t iter, std::uint32_t stg) && { return std::move(at(iter, stg)); }  // a step being made

  static NpuStep graph_call(std::string n, std::uint32_t ops, std::uint64_t io_bytes = 0) {
    NpuStep s; s.kind = Kind::kGraphCall; s.name = std::move(n); s.graph_ops = ops; s.bytes = io_bytes; return s;
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
  static NpuStep hmx_cycles_step(std::string n, std::uint64_t cycles) {
    NpuStep s; s.kind = Kind::kHmxCycles; s.name = std::move(n); s.hmx_cycles = cycles; return s;
  }
  // HVX work that streams its operand from DRAM as it computes (a GEMV over weights that do not
  // fit TCM): time is the longer of the stream and the packets.
  static NpuStep hvx_stream(std::string n, std::uint64_t bytes, double packets, std::uint32_t threads) {
    NpuStep s; s.kind = Kind::kHvxStream; s.name = std::move(n); s.bytes = bytes; s.packets = packets; s.threads = threads; return s;
  }
};

// A stage of a kernel's software pipeline, e.g. "DMA the next weights in", "dequantize on HVX",
// "multiply on HMX". `buffers` is how many TCM buffers its output rotates through: stage s may
// start iteration i only once stage s + 1 has finished iteration i - buffers (the buffer it will
// overwrite has been consumed); 0 = unbounded (nothing downstream reuses its output space).
struct NpuStage {
  std::string name;
  std::uint32_t buffers = 0;
};

// The NPU work of one op. Without stages, steps run one after another. With stages, the work is a
// software pipeline: stage s of iteration i starts when stage s - 1 of iteration i and stage s of
// iteration i - 1 are done (each stage is one in-order instruction stream), within its buffers;
// the stages run as concurrent streams on the hardware threads and engines they ask for, so DMA of
// block i + 1, HVX on block i and HMX on block i - 1 overlap as far as those resources allow.
// Steps are listed in (iteration, stage) order.
struct NpuWork {
  std::vector<NpuStep> steps;
  std::vector<NpuStage> stages;

  bool pipelined() const { return stages.size() > 1; }
};

// Host bytes a work's steps hold (the step list and names longer than the string's inline
// buffer), for the host memory guard (sim/core/host_memory.h: note_host_growth).
inline std::uint64_t host_bytes(const NpuWork& w) {
  std::uint64_t bytes = w.steps.capacity() * sizeof(NpuStep) + w.stages.capacity() * sizeof(NpuStage);
  for (const NpuStep& s : w.steps) bytes += string_heap_bytes(s.name);
  return bytes;
}

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
