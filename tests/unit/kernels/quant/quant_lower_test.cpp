#include "kernels/quant/quant_lower.h"

#include <gtest/gtest.h>

#include "tests/unit/kernels/gemm/kernel_test_util.h"

namespace socsim::kernels {
namespace {

TEST(QuantLower, CpuQuantizeDequantizeAndOutliers) {
  // 1000 elements with the scale computed: absmax 2*1000 ops over 4000 B; quantize 4*1000 ops,
  // 4000 B read + 1000 B written.
  const CpuWork q = lower_quantize_cpu(1000, true, 4);
  ASSERT_EQ(q.tasks.size(), 2u);
  EXPECT_EQ(q.threads, 4u);
  EXPECT_DOUBLE_EQ(q.tasks[0].ops, 2000);
  EXPECT_EQ(q.tasks[0].dram_bytes, 4000u);
  EXPECT_DOUBLE_EQ(q.tasks[1].ops, 4000);
  EXPECT_EQ(q.tasks[1].dram_bytes, 5000u);
  // 3 elements with a given scale: 12 ops, 15 B.
  const CpuWork g = lower_quantize_cpu(3, false, 1);
  ASSERT_EQ(g.tasks.size(), 1u);
  EXPECT_DOUBLE_EQ(g.tasks[0].ops, 12);
  EXPECT_EQ(g.tasks[0].dram_bytes, 15u);
  // Dequantize 1000: 2000 ops, 4000 B INT32 in + 4000 B FP32 out; 7 elements: 14 ops, 56 B.
  EXPECT_DOUBLE_EQ(lower_dequantize_cpu(1000, 1).tasks[0].ops, 2000);
  EXPECT_EQ(lower_dequantize_cpu(1000, 1).tasks[0].dram_bytes, 8000u);
  EXPECT_EQ(lower_dequantize_cpu(7, 1).tasks[0].dram_bytes, 56u);
  // Outlier split of 1000 with 3 outliers: 2000 ops, 8000 B + 3 x 12 B = 8036 B; 10 with none: 80 B.
  EXPECT_DOUBLE_EQ(lower_outlier_split_cpu(1000, 3, 2).tasks[0].ops, 2000);
  EXPECT_EQ(lower_outlier_split_cpu(1000, 3, 2).tasks[0].dram_bytes, 8036u);
  EXPECT_EQ(lower_outlier_split_cpu(10, 0, 2).tasks[0].dram_bytes, 80u);
  EXPECT_EQ(lower_quantize_cpu(10, false, 1).tasks[0].dtype, hw::DType::kFp32);
}

TEST(QuantLower, NpuQuantizeAndDequantizeOnHvx) {
  const auto spec = test::small_npu();  // 128-B vectors, 4 contexts, qfloat
  // 1000 elements -> ceil(1000/128) = 8 output vectors. Scale: 4*8 + 2*log2(64) = 32 + 12 = 44;
  // quantize with qfloat 7*8 = 56.
  const NpuWork q = lower_quantize_npu(1000, true, spec);
  ASSERT_EQ(q.steps.size(), 2u);
  EXPECT_DOUBLE_EQ(q.steps[0].packets, 44);
  EXPECT_DOUBLE_EQ(q.steps[1].packets, 56);
  EXPECT_EQ(q.steps[1].threads, 4u);
  // 128 elements, given scale, no qfloat: 1 vector x 5 = 5.
  const NpuWork g = lower_quantize_npu(128, false, test::small_npu(false));
  ASSERT_EQ(g.steps.size(), 1u);
  EXPECT_DOUBLE_EQ(g.steps[0].packets, 5);
  // Dequantize 1000 INT32: ceil(1000/32) = 32 vectors x 3 (qfloat) = 96; 32 elements, no qfloat: 2.
  EXPECT_DOUBLE_EQ(lower_dequantize_npu(1000, spec).steps[0].packets, 96);
  EXPECT_DOUBLE_EQ(lower_dequantize_npu(32, test::small_npu(false)).steps[0].packets, 2);
}

TEST(QuantLower, GpuQuantizeAndDequantizeStream) {
  // 1000 FP16 values: quantize 4000 ops, 2000 B in + 1000 B out; dequantize 2000 ops, 4000 + 2000 B.
  auto q = lower_quantize_gpu(1000);
  ASSERT_EQ(q.kernels.size(), 1u);
  EXPECT_DOUBLE_EQ(q.kernels[0].flops, 4000);
  EXPECT_EQ(q.kernels[0].dram_bytes, 3000u);
  EXPECT_TRUE(q.kernels[0].streaming);
  auto d = lower_dequantize_gpu(1 << 20);
  EXPECT_DOUBLE_EQ(d.kernels[0].flops, 2.0 * (1 << 20));
  EXPECT_EQ(d.kernels[0].dram_bytes, 6u << 20);
  EXPECT_EQ(d.kernels[0].rows, 0u);
}

}  // namespace
}  // namespace socsim::kernels
