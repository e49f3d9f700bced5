#include "kernels/softmax/softmax_lower.h"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "kernels/elementwise/hvx_mix.h"
#include "kernels/elementwise/op_costs.h"

namespace socsim::kernels {

// Instruction mixes from the TTS paper's own kernels (htp-ops-lib e6bd30a2, src/dsp/ops/
// flash_attn.c softmax loop L432-575, hvx_math.h), per 64 FP16 values unless said otherwise:
//   kPoly   hvx_my_exp2_vhf_vqf16 (degree-3 FP16 polynomial in qf16): 16 VS, 6 VX_DV, 3 VA
//   kExact  the FP32 path: qf16 -> two FP32 vectors (7 VA, 4 VS), hvx_my_exp2_vsf on each
//           (16 VS, 6 VX_DV, 3 VA), back to FP16 (3 VS): 39 VS, 12 VX_DV, 13 VA
//   kLut    the table indexed by the qf16 bits shifted into byte offsets (1 VS), one vgather of 64
//           entries, its paired .new store into TCM and the reload of the result (1 store, 1 load)
// The 1/sqrt(d) scale is folded into the coefficients. Every qfloat add and conversion goes to the
// shift resource, so the polynomials are shift-bound on V73/V75; the LUT is gather-bound.
HvxMix hvx_exp_mix_f16(ExpVariant v) {
  switch (v) {
    case ExpVariant::kPoly: return {.va = 3, .vs = 16, .vx_dv = 6};
    case ExpVariant::kExact: return {.va = 13, .vs = 39, .vx_dv = 12};
    case ExpVariant::kLut: return {.vs = 1, .loads = 1, .stores = 1, .gathers = 1};
  }
  throw std::invalid_argument("unknown exp variant");
}

double hvx_exp_packets_f32(const hw::HvxSpec& hvx) {
  // 32 FP32 values: x log2e (VX_DV) and back to IEEE (VS), then hvx_my_exp2_vsf.
  return vliw_packets({.va = 3, .vs = 17, .vx_dv = 7}, hvx);
}

double hvx_exp_packets_f16(const hw::HvxSpec& hvx, ExpVariant v) { return vliw_packets(hvx_exp_mix_f16(v), hvx); }

HvxMix hvx_softmax_vector_mix(ExpVariant v) {
  // Per 64 values, three passes over the row in FP16:
  //   max:        load, vmax                                             1 load, 1 VA
  //   exp + sum:  load, subtract the max (qf16), exp, FP16 result (kPoly: qf16 -> hf, 1 VS; kExact's
  //               mix ends in hf; kLut's result is already stored by the gather), widen to qf32
  //               (VX_DV) and add into two FP32 sums (2 VS), store
  //   normalize:  load, multiply by 1/sum (VX_DV), qf16 -> hf (VS), store
  HvxMix m{.va = 1, .vs = 1 + 2 + 1, .vx_dv = 2, .loads = 3, .stores = 2};
  if (v == ExpVariant::kPoly) m.vs += 1;
  if (v == ExpVariant::kLut) m.stores -= 1;
  return m + hvx_exp_mix_f16(v);
}

HvxMix hvx_softmax_row_mix() {
  // Per row: reduce the max over 64 lanes (6 rotate + max), reduce the two FP32 sums (1 add, then 5
  // rotate + add), the reciprocal (integer seed, two Newton steps of 2 multiplies and a subtract, a
  // conversion) and two broadcasts. These are dependent chains: counted by resource, a lower bound.
  return {.va = 6 + 1 + 2, .vs = 1 + 5 + 2 + 1, .vx_dv = 4, .vp = 6 + 5};
}

double hvx_softmax_row_packets(const hw::HvxSpec& hvx, std::uint64_t cols, ExpVariant v) {
  const HvxCost c{hvx};
  const double vec = static_cast<double>(c.vectors(cols, 2));
  return vec * vliw_packets(hvx_softmax_vector_mix(v), hvx) + vliw_packets(hvx_softmax_row_mix(), hvx);
}

double cpu_exp_ops(ExpVariant v) {
  switch (v) {
    case ExpVariant::kExact: return kCpuExpOps;
    case ExpVariant::kPoly: return kPolyExpOps;
    case ExpVariant::kLut: return kLutExpOps;
  }
  throw std::invalid_argument("unknown exp variant");
}

double gpu_exp_ops(ExpVariant v) { return v == ExpVariant::kExact ? kGpuExpOps : cpu_exp_ops(v); }

CpuWork lower_softmax_cpu(const SoftmaxShape& s, std::uint32_t threads) {
  const double elems = static_cast<double>(s.rows) * static_cast<double>(s.cols);
  hw::CpuTask t;
  t.name = "softmax.f32";
  t.ops = elems * (4 + cpu_exp_ops(ExpVariant::kExact)) + static_cast<double>(s.rows);
  t.dtype = hw::DType::kFp32;
  t.dram_bytes = s.rows * s.cols * 4 * 2;
  return CpuWork{{t}, std::max<std::uint32_t>(1, threads)};
}

GpuWork lower_softmax_gpu(const SoftmaxShape& s, ExpVariant v) {
  const bool fp32 = v == ExpVariant::kExact;
  const double elems = static_cast<double>(s.rows) * static_cast<double>(s.cols);
  hw::GpuKernel k;
  k.name = std::string("softmax.") + exp_variant_name(v);
  k.flops = elems * (4 + gpu_exp_ops(v)) + static_cast<double>(s.rows);
  k.dtype = fp32 ? hw::DType::kFp32 : hw::DType::kFp16;
  k.dram_bytes = s.rows * s.cols * (fp32 ? 4 : 2) * 2;
  k.streaming = true;  // one pass over the data, memory-bound (gpu_kernel.h)
  return GpuWork{{k}};
}

std::uint32_t hvx_threads(const hw::NpuSpec& npu, std::uint32_t asked, std::uint64_t rows) {
  const std::uint64_t t = std::min<std::uint64_t>({std::max<std::uint32_t>(1, asked), npu.hvx.contexts, rows});
  return static_cast<std::uint32_t>(std::max<std::uint64_t>(1, t));
}

NpuWork lower_softmax_npu(const hw::NpuSpec& npu, const SoftmaxShape& s, ExpVariant v, std::uint32_t threads) {
  const double packets = static_cast<double>(s.rows) * hvx_softmax_row_packets(npu.hvx, s.cols, v);
  NpuWork w;
  w.steps.push_back(NpuStep::hvx(std::string("softmax.") + exp_variant_name(v), packets, hvx_threads(npu, threads, s.rows)));
  return w;
}

}  // namespace socsim::kernels
