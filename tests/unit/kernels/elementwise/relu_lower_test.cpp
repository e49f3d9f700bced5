// ReLU `lower` (relu_lower.h) against hand counts.
#include "kernels/elementwise/relu_lower.h"

#include <gtest/gtest.h>

#include "kernel_test_specs.h"

namespace socsim::kernels {
namespace {

TEST(ReluLower, Counts) {
  // CPU 3 x 10: 30 ops, 30 x (4 in + 4 out) = 240 B.
  auto c = lower_relu_cpu({3, 10}, 2);
  ASSERT_EQ(c.tasks.size(), 1u);
  EXPECT_DOUBLE_EQ(c.tasks[0].ops, 30);
  EXPECT_EQ(c.tasks[0].dram_bytes, 240u);
  EXPECT_EQ(c.threads, 2u);
  // GPU FP16 2 x 100: 200 flops, 200 x 2 x 2 = 800 B, streaming; FP32 1600 B.
  auto g = lower_relu_gpu({2, 100}, hw::DType::kFp16);
  EXPECT_DOUBLE_EQ(g.kernels.at(0).flops, 200);
  EXPECT_EQ(g.kernels[0].dram_bytes, 800u);
  EXPECT_TRUE(g.kernels[0].streaming);
  EXPECT_EQ(lower_relu_gpu({2, 100}, hw::DType::kFp32).kernels[0].dram_bytes, 1600u);
  // NPU 3 x 100 = 300 FP16 values: ceil(300 / 64) = 5 vectors, one vmax each, qfloat or not;
  // 5 vectors over min(4, 5) contexts. 64 values: one vector, one context.
  for (const auto& npu : {test::v75(), test::v79()}) {
    auto n = lower_relu_npu(npu, {3, 100}, 4);
    ASSERT_EQ(n.steps.size(), 1u);
    EXPECT_DOUBLE_EQ(n.steps[0].packets, 5);
    EXPECT_EQ(n.steps[0].threads, 4u);
    EXPECT_EQ(lower_relu_npu(npu, {1, 64}, 4).steps[0].threads, 1u);
  }
}

}  // namespace
}  // namespace socsim::kernels
