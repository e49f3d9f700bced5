#include "kernels/softmax/softmax_lower.h"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "kernels/elementwise/op_costs.h"

namespace socsim::kernels {

double hvx_exp_packets_f32(const hw::HvxSpec& hvx) {
  const HvxCost c{hvx};
  // t = x log2e (1 fop); floor and int->float (2 iop); f = t - n (1 fop); degree-5 Horner
  // (10 fop); n into the exponent field: shift + integer add (2 iop); underflow: compare +
  // select zero (2 iop). 12 fop + 6 iop.
  return 12 * c.fop() + 6 * HvxCost::kIop;
}

double hvx_exp_packets_f16(const hw::HvxSpec& hvx, ExpVariant v) {
  const HvxCost c{hvx};
  switch (v) {
    case ExpVariant::kPoly:
      // poly_exp2.h step by step: t = x log2e (fop); floor, int->float (2 iop); f = t - n (fop);
      // degree-3 Horner (6 fop); shift n + add to the exponent (2 iop); underflow compare + select
      // (2 iop). 8 fop + 6 iop, each depending on the one before.
      return 8 * c.fop() + 6 * HvxCost::kIop;
    case ExpVariant::kLut:
      // Clear the sign bit (vand) and shift left by 1 into byte offsets (vasl): 2 iop; one vgather
      // of 64 FP16 entries (its issue; the latency is hvx_exp_fill_packets, once per batch).
      return 2 * HvxCost::kIop + c.vgather(c.lanes(2));
    case ExpVariant::kExact:
      // Widen to two FP32 vectors, FP32 exp on each, narrow back: 2 + 2 x f32 exp + 1.
      return HvxCost::kWiden + 2 * hvx_exp_packets_f32(hvx) + HvxCost::kIop;
  }
  throw std::invalid_argument("unknown exp variant");
}

double hvx_exp_fill_packets(const hw::HvxSpec& hvx, ExpVariant v) {
  return v == ExpVariant::kLut ? HvxCost{hvx}.vgather_fill() : 0.0;
}

double hvx_softmax_row_packets(const hw::HvxSpec& hvx, std::uint64_t cols, ExpVariant v) {
  const HvxCost c{hvx};
  const double f = c.fop(), i = HvxCost::kIop;
  if (v == ExpVariant::kExact) {
    // FP32 throughout, V = ceil(cols / 32) vectors. Per vector: vmax (i), subtract (f), exp,
    // accumulate (f), scale (f). Per row: reduce the max (log2 32 x 2 i), broadcast (i), reduce
    // the sum (log2 32 x (i + f)), reciprocal (i + 6f), broadcast (i).
    const double vec = static_cast<double>(c.vectors(cols, 4));
    const double per_vector = i + f + hvx_exp_packets_f32(hvx) + f + f;
    const double per_row = c.reduce(4, i) + i + c.reduce(4, f) + c.reciprocal() + i;
    return vec * per_vector + per_row;
  }
  // FP16 values, V = ceil(cols / 64) vectors. Per vector: vmax (i); subtract the max (f); exp;
  // sum in FP32: widen (2) and accumulate into two FP32 accumulators (2f); normalize in FP32:
  // widen (2), scale (2f), narrow (i). Per row: reduce the max (log2 64 x 2 i), broadcast (i),
  // combine the two accumulators (f), reduce the sum (log2 32 x (i + f)), reciprocal (i + 6f),
  // broadcast (i).
  const double vec = static_cast<double>(c.vectors(cols, 2));
  const double per_vector = i + f + hvx_exp_packets_f16(hvx, v) + (HvxCost::kWiden + 2 * f) +
                            (HvxCost::kWiden + 2 * f + i);
  // The row's exps are independent: one pipeline fill (the LUT's gather latency) per row.
  const double per_row = c.reduce(2, i) + i + f + c.reduce(4, f) + c.reciprocal() + i + hvx_exp_fill_packets(hvx, v);
  return vec * per_vector + per_row;
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
