#include "kernels/quant/outliers.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "kernels/tensor/non_finite.h"

namespace socsim::kernels {

namespace {

// The largest multiple of ulp(x) not above t (0 <= t < |x|, x finite and nonzero). ulp(x) =
// 2^(e-24) for |x| = f * 2^e, f in [0.5, 1); t / ulp < 2^24, so floor and both scalings are exact.
float inlier_part(float x, float t) {
  int e = 0;
  std::frexp(x, &e);
  const float kept = std::ldexp(std::floor(std::ldexp(t, 24 - e)), e - 24);
  return std::signbit(x) ? -kept : kept;
}

}  // namespace

std::vector<std::int32_t> SparseOutliers::channels() const {
  std::vector<std::int32_t> c;
  c.reserve(entries.size());
  for (const auto& e : entries) c.push_back(e.col);
  std::sort(c.begin(), c.end());
  c.erase(std::unique(c.begin(), c.end()), c.end());
  return c;
}

OutlierSplit split_outliers(const Tensor& x, float scale) {
  if (x.rank() != 2 || x.type() != ElemType::kF32) throw std::invalid_argument("outlier extraction takes a float32 matrix");
  if (!(scale > 0) || !std::isfinite(scale)) throw NonFiniteData("outlier scale must be positive and finite");
  const float t = 127.0f * scale;
  const std::int64_t rows = x.dim(0), cols = x.dim(1);
  OutlierSplit out{Tensor::matrix(rows, cols, ElemType::kF32), SparseOutliers{rows, cols, {}}};
  const auto in = x.data<float>();
  auto kept = out.inliers.data<float>();
  for (std::int64_t r = 0; r < rows; ++r) {
    for (std::int64_t c = 0; c < cols; ++c) {
      const float v = in[r * cols + c];
      if (!std::isfinite(v)) throw NonFiniteData("outlier extraction of a non-finite value");
      if (std::fabs(v) <= t) {
        kept[r * cols + c] = v;
        continue;
      }
      const float part = inlier_part(v, t);
      kept[r * cols + c] = part;
      out.outliers.entries.push_back({static_cast<std::int32_t>(r), static_cast<std::int32_t>(c), v - part});
    }
  }
  return out;
}

Tensor recombine(const Tensor& inliers, const SparseOutliers& outliers) {
  if (inliers.rank() != 2 || inliers.dim(0) != outliers.rows || inliers.dim(1) != outliers.cols) {
    throw std::invalid_argument("outliers and inliers differ in shape");
  }
  Tensor y = Tensor::matrix(outliers.rows, outliers.cols, ElemType::kF32);
  const auto in = inliers.data<float>();
  auto out = y.data<float>();
  std::copy(in.begin(), in.end(), out.begin());
  for (const auto& e : outliers.entries) out[e.row * outliers.cols + e.col] += e.value;
  return y;
}

}  // namespace socsim::kernels
