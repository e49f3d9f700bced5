#include "kernels/quant/outliers.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "kernels/quant/int8_quant.h"
#include "tests/unit/kernels/gemm/kernel_test_util.h"

namespace socsim::kernels {
namespace {

TEST(QuantOutliers, SplitRecombinesBitExactly) {
  const float scale = 0.01f, t = 127.0f * scale;
  Tensor x = test::random_f32(20, 50, 61, -1.2f, 1.2f);
  auto v = x.data<float>();
  // Just above the range, far above it (where x - T would round), and at the range (not an outlier).
  const float specials[] = {std::nextafter(t, 10.0f), -3.0f, 1e6f, -3.3e7f, 12345.678f, 2.9e-3f * 1e9f, t, -t};
  for (std::size_t i = 0; i < std::size(specials); ++i) v[i * 37 + 3] = specials[i];
  // Random large magnitudes too: the case the naive clip (x - T) gets wrong.
  for (std::size_t i = 400; i < 1000; i += 7) v[i] = std::ldexp(v[i], static_cast<int>(i % 30));
  const OutlierSplit s = split_outliers(x, scale);
  const Tensor back = recombine(s.inliers, s.outliers);
  ASSERT_EQ(std::memcmp(back.raw().data(), x.raw().data(), x.bytes()), 0);
  std::size_t expected = 0;
  for (float e : x.data<float>()) expected += std::fabs(e) > t;
  EXPECT_EQ(s.outliers.entries.size(), expected);
  for (float e : s.inliers.data<float>()) ASSERT_LE(std::fabs(e), t);
  for (const auto& e : s.outliers.entries) {
    ASSERT_EQ(s.inliers.data<float>()[e.row * 50 + e.col] + e.value, x.data<float>()[e.row * 50 + e.col]);
  }
}

TEST(QuantOutliers, EntriesAreCompactAndOrdered) {
  Tensor x = Tensor::matrix(3, 4, ElemType::kF32);
  auto v = x.data<float>();
  v[1] = 5.0f, v[2 * 4 + 1] = -2.0f, v[2 * 4 + 3] = 1.5f, v[5] = 1.0f;  // range 1.27 at scale 0.01
  const OutlierSplit s = split_outliers(x, 0.01f);
  ASSERT_EQ(s.outliers.entries.size(), 3u);
  EXPECT_EQ(s.outliers.entries[0].row, 0);
  EXPECT_EQ(s.outliers.entries[0].col, 1);
  EXPECT_EQ(s.outliers.entries[1].col, 1);
  EXPECT_EQ(s.outliers.entries[2].col, 3);
  EXPECT_EQ(s.outliers.channels(), (std::vector<std::int32_t>{1, 3}));
  // 5 = inlier (1.27 down to a multiple of ulp(5) = 2^-21) + 3.73...: exact, and the inlier is
  // within one ulp of x of the range edge.
  EXPECT_LE(1.27f - s.inliers.data<float>()[1], std::ldexp(1.0f, -21));
  EXPECT_EQ(s.inliers.data<float>()[5], 1.0f);
}

TEST(QuantOutliers, QuantizedInliersPlusOutliersStayWithinHalfAStep) {
  const float scale = 0.02f;
  Tensor x = test::random_f32(8, 64, 62, -2.54f, 2.54f);
  x.data<float>()[10] = 1e5f, x.data<float>()[77] = -40.0f;
  const OutlierSplit s = split_outliers(x, scale);
  const auto q = quantize_per_tensor(s.inliers, scale);
  Tensor y = recombine(dequantize_per_tensor(q.q, scale), s.outliers);
  for (std::size_t i = 0; i < x.numel(); ++i) {
    ASSERT_LE(std::fabs(y.data<float>()[i] - x.data<float>()[i]), scale / 2 * 1.001 + std::fabs(x.data<float>()[i]) * 1e-7) << i;
  }
}

TEST(QuantOutliers, RejectsBadInput) {
  EXPECT_THROW(split_outliers(test::random_f32(2, 2, 1), 0.0f), std::invalid_argument);
  Tensor x = Tensor::matrix(1, 1, ElemType::kF32);
  x.data<float>()[0] = INFINITY;
  EXPECT_THROW(split_outliers(x, 1.0f), std::invalid_argument);
  EXPECT_THROW(recombine(Tensor::matrix(2, 2, ElemType::kF32), SparseOutliers{3, 2, {}}), std::invalid_argument);
}

}  // namespace
}  // namespace socsim::kernels
