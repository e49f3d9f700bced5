// RMSNorm / LayerNorm `compute` against double references and `lower` against hand counts.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "kernels/elementwise/elementwise_lower.h"
#include "kernels/elementwise/norm.h"
#include "tests/unit/kernels/elementwise/kernel_test_specs.h"

namespace socsim::kernels {
namespace {

struct Data {
  Tensor x;
  std::vector<float> w, b;
};

Data make(std::int64_t rows, std::int64_t cols, float offset, unsigned seed) {
  Data d{Tensor::matrix(rows, cols, ElemType::kF32), std::vector<float>(cols), std::vector<float>(cols)};
  std::mt19937 rng(seed);
  std::normal_distribution<float> n(0, 1);
  for (float& v : d.x.data<float>()) v = offset + 3 * n(rng);
  for (auto& v : d.w) v = 1 + 0.1f * n(rng);
  for (auto& v : d.b) v = 0.1f * n(rng);
  return d;
}

TEST(Norm, RmsNormMatchesReference) {
  for (auto [rows, cols] : {std::pair<int, int>{1, 1}, {3, 80}, {2, 4096}}) {
    const auto d = make(rows, cols, 0.5f, static_cast<unsigned>(cols));
    const Tensor y = rms_norm(d.x, d.w, 1e-6f);
    for (int r = 0; r < rows; ++r) {
      double ss = 0;
      for (int j = 0; j < cols; ++j) ss += double(d.x.data<float>()[r * cols + j]) * d.x.data<float>()[r * cols + j];
      const double rstd = 1 / std::sqrt(ss / cols + 1e-6);
      for (int j = 0; j < cols; ++j) {
        const double want = d.x.data<float>()[r * cols + j] * rstd * d.w[j];
        ASSERT_NEAR(y.data<float>()[r * cols + j], want, 1e-5 * (1 + std::fabs(want))) << cols;
      }
    }
  }
}

TEST(Norm, LayerNormMatchesReferenceWithLargeMean) {
  for (auto [rows, cols] : {std::pair<int, int>{2, 7}, {3, 2560}}) {
    const auto d = make(rows, cols, 100.0f, static_cast<unsigned>(cols));  // mean >> std
    const Tensor y = layer_norm(d.x, d.w, d.b, 1e-5f);
    for (int r = 0; r < rows; ++r) {
      double m = 0, v = 0;
      for (int j = 0; j < cols; ++j) m += d.x.data<float>()[r * cols + j];
      m /= cols;
      for (int j = 0; j < cols; ++j) v += std::pow(d.x.data<float>()[r * cols + j] - m, 2);
      const double rstd = 1 / std::sqrt(v / cols + 1e-5);
      for (int j = 0; j < cols; ++j) {
        const double want = (d.x.data<float>()[r * cols + j] - m) * rstd * d.w[j] + d.b[j];
        ASSERT_NEAR(y.data<float>()[r * cols + j], want, 1e-4) << cols;
      }
    }
  }
  const auto d = make(1, 4, 0, 1);
  EXPECT_THROW(layer_norm(d.x, d.w, std::vector<float>(3), 1e-5f), std::invalid_argument);
}

TEST(NormLower, RmsNormHandCounts) {
  // CPU 3 x 4096: 4 ops/element + 4/row = 49152 + 12 = 49164; bytes (12288*2 + 4096 weight)*4.
  auto c = lower_elementwise_cpu(ElementwiseOp::kRmsNorm, {3, 4096}, 1);
  EXPECT_DOUBLE_EQ(c.tasks.at(0).ops, 49164);
  EXPECT_EQ(c.tasks[0].dram_bytes, 114688u);
  // NPU v75 (fop 2): 64 vectors/row x (2 + 6*2 = 14) = 896; per row 7 + 14*2 = 35 -> 931 x 3 = 2793.
  auto n = lower_elementwise_npu(test::v75(), ElementwiseOp::kRmsNorm, {3, 4096}, 8);
  EXPECT_DOUBLE_EQ(n.steps.at(0).packets, 2793);
  EXPECT_EQ(n.steps[0].threads, 3u);
  // NPU v79 1 x 80: 2 vectors x (2 + 6) = 16; per row 7 + 14 = 21 -> 37.
  EXPECT_DOUBLE_EQ(lower_elementwise_npu(test::v79(), ElementwiseOp::kRmsNorm, {1, 80}, 1).steps.at(0).packets, 37);
  // GPU FP32 1 x 80: 320 + 4 = 324 flops; (80*2 + 80)*4 = 960 B.
  auto g = lower_elementwise_gpu(ElementwiseOp::kRmsNorm, {1, 80}, hw::DType::kFp32);
  EXPECT_DOUBLE_EQ(g.kernels.at(0).flops, 324);
  EXPECT_EQ(g.kernels[0].dram_bytes, 960u);
}

TEST(NormLower, LayerNormHandCounts) {
  // CPU 2 x 2560 (phi-2): 8 ops/element + 5/row = 40960 + 10 = 40970; (5120*2 + 2560*2)*4 = 61440 B.
  auto c = lower_elementwise_cpu(ElementwiseOp::kLayerNorm, {2, 2560}, 1);
  EXPECT_DOUBLE_EQ(c.tasks.at(0).ops, 40970);
  EXPECT_EQ(c.tasks[0].dram_bytes, 61440u);
  // GPU FP16: same flops, half the bytes.
  auto g = lower_elementwise_gpu(ElementwiseOp::kLayerNorm, {2, 2560}, hw::DType::kFp16);
  EXPECT_DOUBLE_EQ(g.kernels.at(0).flops, 40970);
  EXPECT_EQ(g.kernels[0].dram_bytes, 30720u);
  // NPU v79: 40 vectors x (4 + 12) = 640; per row 13 + 22 = 35 -> 675 x 2 = 1350.
  EXPECT_DOUBLE_EQ(lower_elementwise_npu(test::v79(), ElementwiseOp::kLayerNorm, {2, 2560}, 4).steps.at(0).packets, 1350);
  // NPU v75: 1 vector x (4 + 24) = 28; per row 13 + 44 = 57 -> 85 x 5 rows = 425.
  EXPECT_DOUBLE_EQ(lower_elementwise_npu(test::v75(), ElementwiseOp::kLayerNorm, {5, 33}, 4).steps.at(0).packets, 425);
}

}  // namespace
}  // namespace socsim::kernels
