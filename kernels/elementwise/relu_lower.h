#pragma once
// `lower` of ReLU, y = max(x, 0), over [rows, cols] (OPT, PhoneLM), beside the activations of
// elementwise_lower.h and with the same conventions:
//   CPU: FP32, 1 op per element (a max); bytes: the input read and the output written, 4 B each.
//   GPU: 1 op per element; bytes 2 x elements x (4 B FP32 or 2 B otherwise); a streaming kernel.
//   NPU: HVX on FP16 data in TCM (no DMA step): one vmax with a zero vector per 64-lane vector,
//        1 packet (max returns IEEE values, so no qfloat conversion: op_costs.h); the vectors are
//        spread over hvx_threads(npu, threads, vectors) contexts.
#include "kernels/elementwise/elementwise_lower.h"

namespace socsim::kernels {

CpuWork lower_relu_cpu(const ElementwiseShape& s, std::uint32_t threads);
GpuWork lower_relu_gpu(const ElementwiseShape& s, hw::DType dtype);
NpuWork lower_relu_npu(const hw::NpuSpec& npu, const ElementwiseShape& s, std::uint32_t threads);

}  // namespace socsim::kernels
