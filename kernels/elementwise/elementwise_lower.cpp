#include "kernels/elementwise/elementwise_lower.h"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "kernels/elementwise/op_costs.h"
#include "kernels/softmax/softmax_lower.h"

namespace socsim::kernels {

const char* elementwise_op_name(ElementwiseOp op) {
  switch (op) {
    case ElementwiseOp::kRmsNorm: return "rms_norm";
    case ElementwiseOp::kLayerNorm: return "layer_norm";
    case ElementwiseOp::kSilu: return "silu";
    case ElementwiseOp::kGeluErf: return "gelu_erf";
    case ElementwiseOp::kGeluTanh: return "gelu_tanh";
    case ElementwiseOp::kResidualAdd: return "residual_add";
    case ElementwiseOp::kGateMul: return "gate_mul";
  }
  return "?";
}

ElementwiseOpCost elementwise_op_cost(ElementwiseOp op) {
  switch (op) {
    // x^2 and accumulate (2), * rstd (1), * w (1); per row: / n, + eps, sqrt, 1/x (4).
    case ElementwiseOp::kRmsNorm: return {4, 4, 4, 1, 1, true};
    // sum (1); (x - mean)^2 accumulated (3); (x - mean) * rstd * w + b (4); per row: mean (1),
    // var / n, + eps, sqrt, 1/x (4).
    case ElementwiseOp::kLayerNorm: return {8, 8, 5, 1, 2, true};
    // negate, exp, + 1, divide.
    case ElementwiseOp::kSilu: return {3 + kCpuExpOps, 3 + kGpuExpOps, 0, 1, 0, false};
    // x / sqrt 2, erf (17 + exp), + 1, * x, * 0.5.
    case ElementwiseOp::kGeluErf:
      return {4 + kErfOpsWithoutExp + kCpuExpOps, 4 + kErfOpsWithoutExp + kGpuExpOps, 0, 1, 0, false};
    // x^2, x^3, * 0.044715, + x, * sqrt(2/pi) (5); tanh (4 + exp); + 1, * x, * 0.5 (3).
    case ElementwiseOp::kGeluTanh:
      return {8 + kTanhOpsWithoutExp + kCpuExpOps, 8 + kTanhOpsWithoutExp + kGpuExpOps, 0, 1, 0, false};
    case ElementwiseOp::kResidualAdd:
    case ElementwiseOp::kGateMul: return {1, 1, 0, 2, 0, false};
  }
  throw std::invalid_argument("unknown elementwise op");
}

double hvx_elementwise_vector_packets(const hw::HvxSpec& hvx, ElementwiseOp op) {
  const HvxCost c{hvx};
  const double f = c.fop();
  const double e = hvx_exp_packets_f16(hvx, ExpVariant::kPoly);
  switch (op) {
    // Widen (2), square (2f) and accumulate (2f) in FP32; * rstd and * w in FP16 (2f).
    case ElementwiseOp::kRmsNorm: return HvxCost::kWiden + 6 * f;
    // Pass 1: widen + accumulate (2 + 2f). Pass 2: widen, subtract the mean, square, accumulate
    // (2 + 6f). Pass 3 in FP16: - mean, * rstd, * w, + b (4f).
    case ElementwiseOp::kLayerNorm: return 2 * HvxCost::kWiden + 12 * f;
    // Stable sigmoid from e = exp(-|x|): |x| and negate (2), exp, 1 + e (f), reciprocal (1 + 6f),
    // e * r for x < 0 (f), compare + select (2), * x (f).
    case ElementwiseOp::kSilu: return 5 + 9 * f + e;
    // erf(z), z = x / sqrt 2 (f), A&S 7.1.26: |z| (1); t = 1/(1 + p|z|) (2f + 1 + 6f); degree-5
    // Horner without constant term (9f); exp(-z^2): z^2 (f), negate (1), exp; 1 - poly * exp (2f);
    // sign (1); then + 1, * x, * 0.5 (3f).
    case ElementwiseOp::kGeluErf: return 4 + 24 * f + e;
    // u = k (x + 0.044715 x^3) (5f); tanh(u) from exp(-2|u|): |u| (1), * -2 (f), exp, 1 + e (f),
    // reciprocal (1 + 6f), (1 - e) * r (2f), sign (1); then + 1, * x, * 0.5 (3f).
    case ElementwiseOp::kGeluTanh: return 3 + 18 * f + e;
    case ElementwiseOp::kResidualAdd:
    case ElementwiseOp::kGateMul: return f;
  }
  throw std::invalid_argument("unknown elementwise op");
}

double hvx_elementwise_row_packets(const hw::HvxSpec& hvx, ElementwiseOp op) {
  const HvxCost c{hvx};
  const double f = c.fop();
  // One FP32 statistic: combine the two accumulators (f), reduce across 32 lanes.
  const double stat = f + c.reduce(4, f);
  switch (op) {
    // sum of squares; rsqrt; broadcast (1).
    case ElementwiseOp::kRmsNorm: return stat + c.rsqrt() + HvxCost::kIop;
    // two statistics, each scaled by 1/n (f); rsqrt; two broadcasts.
    case ElementwiseOp::kLayerNorm: return 2 * (stat + f) + c.rsqrt() + 2 * HvxCost::kIop;
    default: return 0;
  }
}

CpuWork lower_elementwise_cpu(ElementwiseOp op, const ElementwiseShape& s, std::uint32_t threads) {
  const auto cost = elementwise_op_cost(op);
  const std::uint64_t elems = s.rows * s.cols;
  hw::CpuTask t;
  t.name = elementwise_op_name(op);
  t.ops = static_cast<double>(elems) * cost.cpu_ops_per_element + static_cast<double>(s.rows) * cost.ops_per_row;
  t.dtype = hw::DType::kFp32;
  t.dram_bytes = (elems * (cost.tensor_inputs + 1) + s.cols * cost.param_vectors) * 4;
  return CpuWork{{t}, std::max<std::uint32_t>(1, threads)};
}

GpuWork lower_elementwise_gpu(ElementwiseOp op, const ElementwiseShape& s, hw::DType dtype) {
  const auto cost = elementwise_op_cost(op);
  const std::uint64_t elems = s.rows * s.cols;
  const std::uint64_t eb = dtype == hw::DType::kFp32 ? 4 : 2;
  hw::GpuKernel k;
  k.name = elementwise_op_name(op);
  k.flops = static_cast<double>(elems) * cost.gpu_ops_per_element + static_cast<double>(s.rows) * cost.ops_per_row;
  k.dtype = dtype;
  k.dram_bytes = (elems * (cost.tensor_inputs + 1) + s.cols * cost.param_vectors) * eb;
  k.streaming = true;  // one pass over the data, memory-bound (gpu_kernel.h)
  return GpuWork{{k}};
}

NpuWork lower_elementwise_npu(const hw::NpuSpec& npu, ElementwiseOp op, const ElementwiseShape& s, std::uint32_t threads) {
  const HvxCost c{npu.hvx};
  const auto cost = elementwise_op_cost(op);
  double packets = 0;
  std::uint64_t units = 0;  // what the threads split
  if (cost.row_wise) {
    packets = static_cast<double>(s.rows) * (static_cast<double>(c.vectors(s.cols, 2)) * hvx_elementwise_vector_packets(npu.hvx, op) +
                                             hvx_elementwise_row_packets(npu.hvx, op));
    units = s.rows;
  } else {
    units = c.vectors(s.rows * s.cols, 2);
    packets = static_cast<double>(units) * hvx_elementwise_vector_packets(npu.hvx, op);
  }
  NpuWork w;
  w.steps.push_back(NpuStep::hvx(elementwise_op_name(op), packets, hvx_threads(npu, threads, units)));
  return w;
}

}  // namespace socsim::kernels
