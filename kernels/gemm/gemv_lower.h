#pragma once
// `lower` faces of the GEMV (m = 1: one decode token) on the CPU and the GPU. A GEMV is the GEMM
// of the same weights (gemm_lower.h: ops, dtype and DRAM bytes unchanged) run as a vector kernel:
//   CPU: rows = 0. The vector path (llama.cpp's vec_dot kernels) has no micro-kernel row block, so
//        M is not padded to gemm_tile_rows (cpu_task.h: padded_ops; the SoC files' note on it).
//   GPU: rows = 0 (as the GEMM face already says for m = 1) and streaming = true: a mat-vec kernel
//        parallel over n streams the weights at peak efficiency, without the tile ramp of a
//        tiled GEMM (gpu_kernel.h).
// The per-group GEMM's second task/kernel (its float reduction) becomes a vector pass the same way.
// Throws std::invalid_argument for m != 1.
#include "kernels/gemm/gemm_dims.h"
#include "kernels/lowering/work.h"
#include "kernels/quant/block_quant.h"

namespace socsim::kernels {

// The weight formats the GEMM faces take (gemm_lower.h), for choosing one by value.
enum class GemmWeights { kF32, kF16, kI8, kI8PerGroup, kBlock };

struct GemmFormat {
  GemmWeights weights = GemmWeights::kF16;
  std::int64_t group = 128;                   // kI8PerGroup: K rows per scale
  BlockFormat block = BlockFormat::kQ4_0;     // kBlock: Q4_0 / Q8_0
};

// The GEMM face of gemm_lower.h for `f` (lower_gemm_f32_cpu, ..._f16_, ..._i8_,
// ..._i8_per_group_, ..._w4a16_), whatever m.
CpuWork lower_gemm_cpu(const GemmDims& d, const GemmFormat& f, std::uint32_t threads);
GpuWork lower_gemm_gpu(const GemmDims& d, const GemmFormat& f);

// The GEMV faces (m = 1), as above.
CpuWork lower_gemv_cpu(const GemmDims& d, const GemmFormat& f, std::uint32_t threads);
GpuWork lower_gemv_gpu(const GemmDims& d, const GemmFormat& f);
// A decode batch of activation rows through mat-vec kernels: one streaming pass over the weights
// (no tile ramp) per kGpuMatVecMaxRows rows, as llama.cpp's mat-vec kernels take small batches
// (its CUDA backend up to 8 rows, MMVQ_MAX_BATCH_SIZE). The runtime uses it below
// kGpuGemmMinRows rows, where the GEMM face's tile ramp (gpu_compute_model.h) makes it slower
// than re-reading the weights (an assumption: when llama.cpp's Adreno backend switches kernels
// is not modelled).
inline constexpr std::int64_t kGpuMatVecMaxRows = 8;
inline constexpr std::int64_t kGpuGemmMinRows = 32;
// CPU: fewer than kCpuGemmMinRows rows (decode batches) take llama.cpp's dot-product path, which
// loops over the activation rows inside each block of weight rows (the weights stream once) and
// computes no padding rows: the GEMM face's ops with rows = 0 (no micro-kernel row blocks,
// cpu_task.h). The runtime's choice, as for the GPU.
inline constexpr std::int64_t kCpuGemmMinRows = 32;
CpuWork lower_matvec_cpu(const GemmDims& d, const GemmFormat& f, std::uint32_t threads);
GpuWork lower_matvec_gpu(const GemmDims& d, const GemmFormat& f);

}  // namespace socsim::kernels
