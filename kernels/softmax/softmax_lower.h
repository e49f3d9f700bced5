#pragma once
// Row softmax, the `lower` face: the work of `rows` softmaxes over `cols` values per unit.
//
// CPU: FP32 exact (what the CPU backends run). Ops per element: max, subtract, exp
//   (kCpuExpOps), sum, scale = 4 + 16 = 20; plus one reciprocal per row. Reads and writes FP32.
// GPU: FP32 with the SFU exp for kExact; FP16 for the polynomial and LUT variants, whose exp costs
//   kPolyExpOps / kLutExpOps. Ops per element 4 + exp ops; one reciprocal per row.
// NPU: HVX only (hvx_softmax_row_packets, counts in softmax_lower.cpp). kExact is an FP32 vector
//   pipeline (32 lanes); kPoly and kLut keep values in FP16 (64 lanes) and promote the row sum and
//   the normalization to FP32; a LUT row also waits for one vgather latency (op_costs.h).
//   Rows are spread over `threads` HVX contexts. The LUT is assumed
//   resident in TCM (built once at start-up, TTS paper), so no DMA is charged for it.
#include <cstdint>

#include "kernels/lowering/work.h"
#include "kernels/softmax/exp_variant.h"
#include "sim/hw/npu/npu_spec.h"

namespace socsim::kernels {

struct SoftmaxShape {
  std::uint64_t rows = 0, cols = 0;
};

// exp on one HVX vector of 64 FP16 values (kExact: widen, FP32 exp on two vectors, narrow).
double hvx_exp_packets_f16(const hw::HvxSpec& hvx, ExpVariant v);
// Latency a batch of independent exps waits for once (kLut: the vgather latency; 0 otherwise).
double hvx_exp_fill_packets(const hw::HvxSpec& hvx, ExpVariant v);
// exp on one HVX vector of 32 FP32 values (degree-5 polynomial).
double hvx_exp_packets_f32(const hw::HvxSpec& hvx);
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
