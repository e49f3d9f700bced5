#pragma once
// `lower` of the row norms, activations and binary elementwise ops over [rows, cols]
// (rows = tokens, cols = hidden or FFN width). Counts per element (CPU/GPU ops) and per HVX
// vector of 64 FP16 values; the derivations are next to each number in elementwise_lower.cpp.
//   CPU: FP32, ops per element + ops per row (norm statistics); bytes: inputs and output once,
//        plus the weight/bias vectors of a norm.
//   GPU: same op counts with the SFU exp (kGpuExpOps) instead of a polynomial; FP32 or FP16 bytes.
//   NPU: HVX on FP16 data in TCM (the surrounding graph keeps activations there, so no DMA step);
//        transcendental activations use the FP16 polynomial exp (softmax_lower.h); norms
//        accumulate in FP32. Rows (or vectors, for pointwise ops) are spread over the threads.
#include <cstdint>

#include "kernels/lowering/work.h"
#include "sim/hw/npu/npu_spec.h"

namespace socsim::kernels {

enum class ElementwiseOp { kRmsNorm, kLayerNorm, kSilu, kGeluErf, kGeluTanh, kResidualAdd, kGateMul };
const char* elementwise_op_name(ElementwiseOp op);

struct ElementwiseShape {
  std::uint64_t rows = 0, cols = 0;
};

struct ElementwiseOpCost {
  double cpu_ops_per_element = 0, gpu_ops_per_element = 0, ops_per_row = 0;
  std::uint32_t tensor_inputs = 1;  // activation tensors read (the output is written once)
  std::uint32_t param_vectors = 0;  // cols-long weight/bias vectors read once
  bool row_wise = false;            // needs a row reduction (norms)
};
ElementwiseOpCost elementwise_op_cost(ElementwiseOp op);

// HVX packets per 64-lane FP16 vector and per row (row-wise ops only).
double hvx_elementwise_vector_packets(const hw::HvxSpec& hvx, ElementwiseOp op);
double hvx_elementwise_row_packets(const hw::HvxSpec& hvx, ElementwiseOp op);

CpuWork lower_elementwise_cpu(ElementwiseOp op, const ElementwiseShape& s, std::uint32_t threads);
GpuWork lower_elementwise_gpu(ElementwiseOp op, const ElementwiseShape& s, hw::DType dtype);
NpuWork lower_elementwise_npu(const hw::NpuSpec& npu, ElementwiseOp op, const ElementwiseShape& s, std::uint32_t threads);

}  // namespace socsim::kernels
