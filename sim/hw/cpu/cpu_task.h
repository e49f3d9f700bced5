#pragma once
// One unit of CPU work as a strategy hands it to the CPU model, and the pure cost arithmetic the
// model (and solvers that must not run a simulation) derive from it.
#include <cstdint>
#include <string>

#include "sim/hw/cpu/cpu_spec.h"
#include "sim/hw/dtype.h"

namespace socsim::hw {

struct CpuTask {
  std::string name;
  double ops = 0;                // arithmetic ops (2*M*K*N for a GEMM; elementwise op counts otherwise)
  DType dtype = DType::kFp32;    // picks fp32/fp16/int8 throughput per cycle
  std::uint64_t dram_bytes = 0;  // bytes streamed from/to DRAM
  std::uint64_t rows = 0;        // GEMM M, for micro-kernel row padding; 0 if not a GEMM
  bool scalar = false;           // scalar, branchy code: one op per cycle whatever the dtype's vector rate
  // > 0: a kernel costed by its instruction mix: it issues this many vector micro-ops per op, at
  // the core's simd_pipes per cycle (llama.cpp's vec_dot kernels; kernels/llamacpp/). Overrides
  // the dtype's sustained rate; the cluster must describe simd_pipes.
  double simd_uops_per_op = 0;
  // The same kernel's micro-ops per op on a core without dot-product instructions (each SDOT
  // emulated); 0 = the same as simd_uops_per_op.
  double simd_uops_per_op_no_dotprod = 0;
  // Static partition: every thread gets the same share whatever its core's speed, so the slowest
  // core sets the finish time (ggml's mul_mat before dynamic chunking, llama.cpp PR #6915).
  // false: shares in proportion to the cores' throughput (work handed out in chunks).
  bool even_split = false;
  // At most this many threads run the task (0 = the work's threads): a phase that one thread
  // does while the others wait at the barrier (ggml's INIT phase quantizing the activations).
  std::uint32_t max_threads = 0;
};

// Cores of one cluster kept for the work that names that cluster (CpuComplex::set_pins).
struct CpuPin {
  std::string cluster;
  std::uint32_t cores = 0;
};

// Ops one core of `c` completes per cycle for `d`. W4A16 uses the INT8 rate: llama.cpp-style CPU
// kernels quantize activations to 8 bits and run Q4 weights through int8 dot products
// (ggml-cpu vec_dot_q4_0_q8_0, SDOT/SMMLA), so there is no FP16 math in the inner loop.
double ops_per_cycle(const CpuClusterSpec& c, DType d);
// The rate `t` runs at on one core of `c`: 1 for scalar tasks; simd_pipes / simd_uops_per_op
// for a kernel costed by its instruction mix (std::invalid_argument if `c` has no simd_pipes);
// else ops_per_cycle(c, t.dtype).
double task_ops_per_cycle(const CpuClusterSpec& c, const CpuTask& t);
// Ops per second of one core of `c` running `t` by its arithmetic (run_on_fastest ranks clusters by the
// lower of this and the core's DRAM stream).
double task_ops_per_second(const CpuClusterSpec& c, const CpuTask& t);

// Ops per second of one core of `c` for `d` (clock x ops per cycle).
double core_ops_per_second(const CpuClusterSpec& c, DType d);

// The ops the cores actually execute: for a GEMM (rows > 0) M is rounded up to a multiple of
// gemm_tile_rows, because the micro-kernel always computes a whole row block (a 32-row GEMM
// costs as much as a 64-row one when the block is 64). Non-GEMM work is not padded.
double padded_ops(const CpuTask& t, std::uint32_t gemm_tile_rows);
// The same for a share `ops` of the task's (its rows padded the same way).
double padded_ops(const CpuTask& t, double ops, std::uint32_t gemm_tile_rows);

// Whole cycles one of `threads` cores needs for its even share of `ops` (rounded up: a started
// cycle is spent). A relative 1e-12 slack keeps exact quotients such as 1e6/16 from becoming
// one cycle more through floating-point representation error.
std::uint64_t compute_cycles_per_thread(double ops, double ops_per_cycle, std::uint32_t threads);

}  // namespace socsim::hw
