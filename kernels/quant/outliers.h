#pragma once
// Outlier extraction for per-tensor W8A8 (llm.npu's shadow outlier execution): with a scale fixed
// offline, values beyond the quantizable range |x| <= T = 127 * scale are split into
//   x = inlier + outlier,   inlier within [-T, T] (quantized and multiplied on the NPU),
//                           outlier kept in a compact sparse tensor (multiplied on the CPU).
// The split is exact in float: at an outlier position the inlier is T rounded down (towards zero)
// to a multiple of the ulp of x, so x - inlier is a multiple of that ulp no larger than |x| and is
// represented exactly; inlier + outlier == x bit for bit. (Clipping to T itself would not do:
// fl(x - T) loses bits once |x| > 2T.) Everywhere else the inlier is x and there is no entry.
#include <cstdint>
#include <vector>

#include "kernels/tensor/tensor.h"

namespace socsim::kernels {

struct OutlierEntry {
  std::int32_t row = 0, col = 0;  // col is the input channel (the k index of the GEMM)
  float value = 0;
  bool operator==(const OutlierEntry&) const = default;
};

// A sparse [rows x cols] float tensor, entries in row-major order.
struct SparseOutliers {
  std::int64_t rows = 0, cols = 0;
  std::vector<OutlierEntry> entries;

  // The distinct columns holding outliers, ascending: the channels llm.npu gathers into a dense
  // [rows x channels] tensor for the CPU matmul.
  std::vector<std::int32_t> channels() const;
};

struct OutlierSplit {
  Tensor inliers;            // float32, the input's shape, |v| <= 127 * scale
  SparseOutliers outliers;
};

// Splits a float32 matrix [rows x cols] against the range of `scale` (> 0).
OutlierSplit split_outliers(const Tensor& x, float scale);

// inliers + outliers as a dense float32 matrix.
Tensor recombine(const Tensor& inliers, const SparseOutliers& outliers);

}  // namespace socsim::kernels
