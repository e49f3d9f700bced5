#pragma once
// `lower` of FP32 full attention with one query row per head (a decode step) on the CPU and the
// GPU: the full causal kernel's three tasks (attention_lower.h: attention.qk, attention.softmax,
// attention.pv with the same ops and bytes) run as mat-vec kernels over the K/V cache, as the
// GEMV faces run a one-row GEMM (kernels/gemm/gemv_lower.h):
//   CPU: rows = 0. One query row is a dot product per key; the vector path has no micro-kernel
//        row block, so it is not padded to gemm_tile_rows (cpu_task.h).
//   GPU: rows = 0 and streaming = true for all three: the mat-vec and row-softmax kernels stream
//        the cache at peak efficiency without the tile ramp of a tiled GEMM (gpu_kernel.h).
// Throws std::invalid_argument unless q_len == 1.
#include <cstdint>

#include "kernels/attention/attention_shape.h"
#include "kernels/lowering/work.h"

namespace socsim::kernels {

CpuWork lower_attention_decode_cpu(const AttentionShape& s, std::uint32_t threads, hw::DType gemm_dtype = hw::DType::kFp32);
GpuWork lower_attention_decode_gpu(const AttentionShape& s);

}  // namespace socsim::kernels
