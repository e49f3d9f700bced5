#pragma once
// Row softmax, the `lower` face: the work of `rows` softmaxes over `cols` values per unit.
//
// CPU: FP32 exact (what the CPU backends run). Ops per element: max, subtract, exp
//   (kCpuExpOps), sum, scale = 4 + 16 = 20; plus one reciprocal per row. Reads and writes FP32.
// GPU: FP32 with the SFU exp for kExact; FP16 for the polynomial and LUT variants, whose exp costs
//   kPolyExpOps / kLutExpOps. Ops per element 4 + exp ops; one reciprocal per row.
// NPU: HVX only (hvx_softmax_row_packets): the instruction mixes of the TTS paper's kernels
//   (softmax_lower.cpp) in VLIW packets by resource (hvx_mix.h). Values stay FP16 (64 lanes), the
//   row sum is FP32; kExact computes exp in FP32 on the widened values (the paper's FP32 path),
//   kPoly a degree-3 FP16 polynomial, kLut a vgather from the 64 KiB table, each gather holding
//   the thread's gather path for hvx.vgather_latency_packets.
//   Rows are spread over `threads` HVX contexts. The LUT is assumed
//   resident in TCM (built once at start-up, TTS paper), so no DMA is charged for it.
#include <cstdint>

#include "kernels/elementwise/hvx_mix.h"
#include "kernels/lowering/work.h"
#include "kernels/softmax/exp_variant.h"
#include "sim/hw/npu/npu_spec.h"

namespace socsim::kernels {

struct SoftmaxShape {
  std::uint64_t rows = 0, cols = 0;
};

// The instructions of exp on one HVX vector of 64 FP16 values (kExact: widen, FP32 exp on two
// vectors, narrow), and their VLIW packets on one thread.
HvxMix hvx_exp_mix_f16(ExpVariant v);
double hvx_exp_packets_f16(const hw::HvxSpec& hvx, ExpVariant v);
// exp on one HVX vector of 32 FP32 values.
double hvx_exp_packets_f32(const hw::HvxSpec& hvx);
// One softmax vector of 64 values (three passes) and a row's reductions and reciprocal.
HvxMix hvx_softmax_vector_mix(ExpVariant v);
HvxMix hvx_softmax_row_mix();
// One softmax row of `cols` values on HVX.
double hvx_softmax_row_packets(const hw::HvxSpec& hvx, std::uint64_t cols, ExpVariant v);

// exp ops per element for the CPU and GPU faces.
double cpu_exp_ops(ExpVariant v);
double gpu_exp_ops(ExpVariant v);

CpuWork lower_softmax_cpu(const SoftmaxShape& s, std::uint32_t threads);
GpuWork lower_softmax_gpu(const SoftmaxShape& s, ExpVariant v);
NpuWork lower_softmax_npu(const hw::NpuSpec& npu, const SoftmaxShape& s, ExpVariant v, std::uint32_t threads);

// Contexts a row-parallel HVX kernel uses: no more than asked, than exist, or than rows.
std::uint32_t hvx_threads(const hw::NpuSpec& npu, std::uint32_t asked, std::uint64_t rows);

}  // namespace socsim::kernels
