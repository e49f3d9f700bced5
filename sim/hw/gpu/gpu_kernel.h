#pragma once
// One OpenCL kernel as the GPU model sees it: how much arithmetic, in which precision, how many
// bytes it moves to and from DRAM, and (for a GEMM) how many parallel rows it has.
#include <cstdint>
#include <string>

#include "sim/hw/dtype.h"

namespace socsim::hw {

struct GpuKernel {
  std::string name;
  double flops = 0;               // arithmetic work (2*M*K*N for a GEMM)
  DType dtype = DType::kFp16;     // picks fp16/fp32/int8 throughput (w4a16 -> fp16 math)
  std::uint64_t dram_bytes = 0;   // bytes moved to/from DRAM by the kernel
  // GEMM M (parallel rows); 0 when not a GEMM. Few rows scale the compute efficiency by
  // rows / (rows + half_efficiency_rows) (gpu_compute_model.h): M = 1 costs ~65x on the 8 Gen 3
  // values, so a GEMV kernel that parallelizes over N rather than tiling M should say rows = 0.
  std::uint64_t rows = 0;
  // A streaming kernel (GEMV over the weights, elementwise ops) has no tile ramp: it runs at
  // peak_efficiency and is normally memory-bound. Tiled kernels (GEMM, attention) ramp up with size.
  bool streaming = false;
  // Bytes of the kernel's largest operand buffer (a GEMM's weights); 0 when small or unknown. An
  // OpenCL buffer may not exceed CL_DEVICE_MAX_MEM_ALLOC_SIZE (gpu.max_allocation), so weights
  // beyond it are held as several buffers and the GPU runs one kernel per buffer (adreno_gpu.h).
  std::uint64_t weight_bytes = 0;
};

// `k` without its name (a copy that is never shown: the name is the one field that allocates).
// (Every field listed: -Wextra's missing-field-initializers flags one added and not copied here.)
inline GpuKernel unnamed(const GpuKernel& k) { return GpuKernel{{}, k.flops, k.dtype, k.dram_bytes, k.rows, k.streaming, k.weight_bytes}; }

}  // namespace socsim::hw
