#pragma once
// `lower` faces of the quantization helpers (int8_quant.h, outliers.h) for the units that run them
// at inference time: the CPU (llm.npu does its quantize/dequantize glue there) and the NPU's HVX.
// Offline work (min-max calibration of weights, Q4_0/Q8_0 packing) has no lower face.
//
// CPU, per element, FP32 (one op per arithmetic instruction-equivalent):
//   min-max scale:  2 ops (abs, max),                              reads 4 B
//   quantize:       4 ops (multiply by 1/scale, round, 2 clamps),  reads 4 B, writes 1 B
//   dequantize:     2 ops (convert, multiply),                     reads 4 B (INT32), writes 4 B
//   outlier split:  2 ops (abs, compare),                          reads 4 B, writes 4 B, plus
//                   12 B per outlier entry (row, col, value)
// NPU HVX on FP16 activations, per vector_bytes INT8 outputs (two FP16 input vectors), all contexts:
//   min-max scale:  vabs + vmax per input vector = 4, plus a final cross-lane reduction of
//                   log2(vector_bytes / 2) vshuff + vmax steps (2 packets each), once
//   quantize:       per input vector vmpy by 1/scale + vcvt to int16 = 2 (+1 qfloat conversion),
//                   plus one saturating vpack of the two int16 vectors = 5 (7 with qfloat)
//   dequantize:     per output vector of vector_bytes / 4 INT32: vcvt + vmpy = 2 (+1 qfloat)
// GPU (llm.npu's GPU-NPU variant runs the glue there): one streaming kernel each, on FP16
// activations, the CPU's op counts per element:
//   quantize:       4 ops, reads 2 B (FP16), writes 1 B
//   dequantize:     2 ops, reads 4 B (INT32), writes 2 B (FP16)
#include <cstdint>

#include "kernels/lowering/work.h"
#include "sim/hw/npu/npu_spec.h"

namespace socsim::kernels {

CpuWork lower_quantize_cpu(std::int64_t elements, bool compute_scale, std::uint32_t threads);
CpuWork lower_dequantize_cpu(std::int64_t elements, std::uint32_t threads);
CpuWork lower_outlier_split_cpu(std::int64_t elements, std::int64_t outliers, std::uint32_t threads);

GpuWork lower_quantize_gpu(std::int64_t elements);
GpuWork lower_dequantize_gpu(std::int64_t elements);

NpuWork lower_quantize_npu(std::int64_t elements, bool compute_scale, const hw::NpuSpec& spec);
NpuWork lower_dequantize_npu(std::int64_t elements, const hw::NpuSpec& spec);

}  // namespace socsim::kernels
