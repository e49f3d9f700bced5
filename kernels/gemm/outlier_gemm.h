#pragma once
// The CPU side of llm.npu's shadow outlier execution: the outliers split off the activations
// (outliers.h) times the matching weight rows, added to the NPU's W8A8 result. `compute` and the
// CPU `lower` face (the compact dense matmul llm.npu runs over the extracted channels).
#include <cstdint>

#include "kernels/lowering/work.h"
#include "kernels/quant/outliers.h"
#include "kernels/tensor/tensor.h"

namespace socsim::kernels {

// y[r][j] += value * (float(w[col][j]) * w_scale) for every outlier (r, col, value), in entry
// order; y is float32 [rows x n], w int8 [cols x n] with a per-tensor scale.
void add_outlier_gemm(const SparseOutliers& outliers, const Tensor& w, float w_scale, Tensor& y);

// m rows of activations with `channels` outlier channels against n output columns: one FP32
// GEMM [m x channels] x [channels x n] (ops 2 m channels n) reading the channels' weight rows
// (weight_bytes each), the compact activations (4 B) and reading and writing the outputs (4 B).
CpuWork lower_outlier_gemm_cpu(std::int64_t m, std::int64_t channels, std::int64_t n, double weight_bytes,
                               std::uint32_t threads);

}  // namespace socsim::kernels
