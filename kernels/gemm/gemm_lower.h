#pragma once
// `lower` faces of the GEMM kernels for the CPU and the GPU: one CpuTask / GpuKernel each, with
//   ops/flops  = 2 m k n (the INT8 and quantized kernels count their multiply-adds the same way)
//   dram_bytes = weights + activations + outputs, each read or written once:
//     INT8 (W8A8):     k n          + m k          + 4 m n (INT32)
//     FP32:            4 k n        + 4 m k        + 4 m n
//     FP16:            2 k n        + 2 m k        + 2 m n
//     Q4_0 / Q8_0:     n ceil(k/32) 18 / 34 (4.5 / 8.5 bits per weight) + 2 m k + 2 m n (FP16)
//     per-group INT8:  k n + 4 n ceil(k/G) (FP32 scales) + m k + 4 m n (FP32)
//   rows       = m: CPU micro-kernels pad M to their row block, GPU GEMM tiles lose efficiency at
//                small M. A GPU kernel with m = 1 is a GEMV that parallelizes over n (llama.cpp's
//                OpenCL mat-vec kernels), so it says rows = 0 as gpu_kernel.h asks.
// Precision: INT8 -> kInt8; FP32 -> kFp32; FP16 -> kFp16; Q4_0 -> kW4A16 (the CPU runs it at the
// int8 rate as llama.cpp's q4_0 x q8_0 dot products do, the GPU at FP16); Q8_0 -> kInt8 on the
// CPU (q8_0 x q8_0 dots) and kFp16 on the GPU (dequantized to FP16). The per-group GEMM adds a
// second FP32 task for its float reduction: 2 m n G' ops (a multiply and an add per output per
// group, G' = ceil(k/G) groups), operands in cache.
#include <cstdint>

#include "kernels/gemm/gemm_dims.h"
#include "kernels/lowering/work.h"
#include "kernels/quant/block_quant.h"

namespace socsim::kernels {

// Bytes of weights in a block format for k x n: n ceil(k/32) blocks.
std::uint64_t block_weight_bytes(std::int64_t k, std::int64_t n, BlockFormat f);

CpuWork lower_gemm_i8_cpu(const GemmDims& d, std::uint32_t threads);
GpuWork lower_gemm_i8_gpu(const GemmDims& d);
CpuWork lower_gemm_f32_cpu(const GemmDims& d, std::uint32_t threads);
GpuWork lower_gemm_f32_gpu(const GemmDims& d);
CpuWork lower_gemm_f16_cpu(const GemmDims& d, std::uint32_t threads);
GpuWork lower_gemm_f16_gpu(const GemmDims& d);
CpuWork lower_gemm_w4a16_cpu(const GemmDims& d, BlockFormat f, std::uint32_t threads);
GpuWork lower_gemm_w4a16_gpu(const GemmDims& d, BlockFormat f);
CpuWork lower_gemm_i8_per_group_cpu(const GemmDims& d, std::int64_t group, std::uint32_t threads);
GpuWork lower_gemm_i8_per_group_gpu(const GemmDims& d, std::int64_t group);

}  // namespace socsim::kernels
