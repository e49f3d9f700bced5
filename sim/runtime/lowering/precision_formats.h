#pragma once
// What a runtime Precision (job.h) means for the kernels' `lower` faces.
#include <cstdint>

#include "kernels/gemm/gemv_lower.h"
#include "sim/hw/dtype.h"
#include "sim/runtime/job.h"

namespace socsim::runtime::lowering {

// Per-group INT8 uses groups of 128 along K (AWQ/K-Quant-like).
inline constexpr std::int64_t kWeightGroup = 128;

// The GEMM weight format of a precision: kFp32 -> FP32, kFp16 -> FP16, kW8A8 -> INT8 per tensor,
// kW8A8Group -> per-group INT8 (kWeightGroup), kW4A16 -> Q4_0.
kernels::GemmFormat gemm_format(Precision p);

// On the NPU there is no FP32 GEMM (HMX multiplies FP16 or INT8): kFp32 runs as FP16.
kernels::GemmFormat npu_gemm_format(Precision p);

// Element type of a GPU kernel's non-GEMM data: FP32 for kFp32, FP16 otherwise.
hw::DType gpu_float_dtype(Precision p);

// Bits per stored weight and bytes per activation element (the graph-size model of graph builds).
double weight_bits(Precision p);
double activation_bytes(Precision p);

}  // namespace socsim::runtime::lowering
