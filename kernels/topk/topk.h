#pragma once
// Per-row top-k of a score matrix with causally masked positions skipped, not masked
// (shadowAttn section 3.1): row i of a query chunk whose first query sits at position p0 may see
// keys 0..p0+i; keys j > p0 + i are never candidates. Ranking is on raw scores (no softmax).
//
// Result: for each row, the selected key indices best first; equal scores rank the lower index
// first, so the selection is deterministic. NaN scores rank as -inf. A row with fewer visible
// keys than k returns all of them.
//
// `lower`: a heap selection (std::partial_sort) costs about n log k comparisons. We charge, per
// row with n visible keys and k' = min(k, n) selected,
//   ops = n * max(1, ceil(log2 k'))   (0 when k' = 0)
// and DRAM bytes for the visible scores read plus the k' int32 indices written. The CPU model
// applies its FP32 SIMD rate to these ops (a vectorized threshold filter compares a vector of
// scores per instruction), for FP32 and INT32 scores alike.
//
// `lower_topk_gpu*`: a radix select per row (a work-group per row, as GPU top-k kernels do): four
// 8-bit digit passes over the row's 32-bit keys, each loading a key, extracting its digit and
// adding to a 256-bin local histogram (3 ops; the bin scans are negligible), then one pass that
// writes the indices of the keys above the found threshold (2 ops):
//   ops = 14 x n per row,
// one streaming kernel (no tile ramp; rows are independent), DRAM bytes as the CPU face (a row of
// up to 4096 scores stays in local memory between passes).
#include <cstdint>
#include <cmath>
#include <vector>

#include "kernels/lowering/work.h"
#include "kernels/tensor/tensor.h"

namespace socsim::kernels {

using RowIndices = std::vector<std::vector<std::int32_t>>;

// Keys row `row` may see among `n`: min(n, p0 + row + 1).
std::uint64_t visible_keys(std::uint64_t n, std::uint64_t p0, std::uint64_t row);
// k for a row under a kept fraction (shadowAttn's per-head ratio): ceil(ratio * visible), with
// ratio capped at 1.
std::uint64_t k_for_ratio(double ratio, std::uint64_t visible);
// The same for a ratio already checked and capped at 1, without the check (loops over rows).
inline std::uint64_t k_for_capped_ratio(double capped, std::uint64_t visible) {
  // The small slack keeps products such as 0.2 * 5 from rounding up to the next integer.
  const auto k = static_cast<std::uint64_t>(std::ceil(capped * static_cast<double>(visible) - 1e-9));
  return k < visible ? k : visible;
}

// `scores` is [rows, n], F32 or I32 (raw INT8 Q.K^T from the NPU).
RowIndices topk_causal(const Tensor& scores, std::uint64_t p0, std::uint64_t k);
RowIndices topk_causal_ratio(const Tensor& scores, std::uint64_t p0, double ratio);

struct TopKShape {
  std::uint64_t rows = 0, n = 0, p0 = 0;
  std::uint32_t score_bytes = 4;  // F32 or I32
};
double topk_row_ops(std::uint64_t visible, std::uint64_t k);
CpuWork lower_topk_cpu(const TopKShape& s, std::uint64_t k, std::uint32_t threads);
CpuWork lower_topk_cpu_ratio(const TopKShape& s, double ratio, std::uint32_t threads);
double topk_row_ops_gpu(std::uint64_t visible);
GpuWork lower_topk_gpu_ratio(const TopKShape& s, double ratio);

}  // namespace socsim::kernels
