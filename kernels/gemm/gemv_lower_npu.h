#pragma once
// `lower` face of the GEMV (m = 1: one decode token) on the Hexagon NPU. HMX would pad the one row
// to a 32-row tile and stage the weights tile by tile through TCM; the vendor runtime instead
// streams the weights through L2 on all HVX threads, multiplying as they arrive (HeteroLLM 3.3:
// 40-45 GB/s on the 8 Gen 3). One hvx_stream step on spec.hvx.contexts threads:
//   bytes   = the weights:  FP16 2 k n;  INT8 k n;  per-group INT8 k n + 2 n ceil(k/G) (one FP16
//             scale per group and column);  Q4_0 n ceil(k/32) 18 (block_weight_bytes)
//   packets = ceil(m k n / L) x P  +  ceil(k n / L) x D, with L = vector_bytes / 2 FP16 lanes,
//             P = hvx.fp16_mac_packets per vector of multiply-adds (half of it for INT8 and
//             per-group INT8: twice the lanes per packet), and D the dequantization as the
//             weights stream, per vector of L weights: Q4_0 4 (unpack, subtract 8, convert,
//             scale) + 1 qfloat conversion; per-group INT8 1 (the group scale multiply) + 1
//             qfloat; FP16 and INT8 none (INT8 rides on the output scale).
// Activations (k values) and outputs (n values) stay in TCM and are not charged. Formats without
// a rule here (FP32: the NPU has no FP32 GEMM; Q8_0) throw std::invalid_argument.
#include "kernels/gemm/gemm_dims.h"
#include "kernels/gemm/gemv_lower.h"
#include "kernels/lowering/work.h"
#include "sim/hw/npu/npu_spec.h"

namespace socsim::kernels {

enum class GemvArithmetic { kFloat, kInteger };

NpuWork lower_gemv_npu(const GemmDims& d, const GemmFormat& f, const hw::NpuSpec& spec,
                       GemvArithmetic arithmetic = GemvArithmetic::kFloat);

}  // namespace socsim::kernels
