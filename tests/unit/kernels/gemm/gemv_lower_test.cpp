// GEMV faces (gemv_lower.h, gemv_lower_npu.h) against hand counts.
#include <gtest/gtest.h>

#include "kernel_test_util.h"
#include "kernels/gemm/gemm_lower.h"
#include "kernels/gemm/gemv_lower.h"
#include "kernels/gemm/gemv_lower_npu.h"

namespace socsim::kernels {
namespace {

const GemmFormat kQ4{GemmWeights::kBlock, 128, BlockFormat::kQ4_0};

TEST(GemvLower, CpuIsTheGemmOnTheVectorPath) {
  // 2*4096*4096 = 33,554,432 ops; Q4_0 4096 columns x 128 blocks x 18 B = 9,437,184 + 2*4096 in + 2*4096 out.
  const CpuWork w = lower_gemv_cpu({1, 4096, 4096}, kQ4, 6);
  ASSERT_EQ(w.tasks.size(), 1u);
  EXPECT_DOUBLE_EQ(w.tasks[0].ops, 33'554'432);
  EXPECT_EQ(w.tasks[0].dram_bytes, 9'453'568u);
  EXPECT_EQ(w.tasks[0].dtype, hw::DType::kW4A16);
  EXPECT_EQ(w.tasks[0].rows, 0u);  // the GEMM face says 1, which the CPU would pad to its row block
  EXPECT_EQ(w.threads, 6u);
  EXPECT_THROW(lower_gemv_cpu({2, 8, 8}, kQ4, 1), std::invalid_argument);
}

TEST(GemvLower, GpuStreams) {
  // Per-group INT8, G 32, 64 x 32: 4096 flops; k n 2048 + FP32 scales 4*32*2 = 256 + m k 64 + 4 m n 128 = 2496 B.
  // Reduction: 2 * 1 * 32 * 2 groups = 128 flops.
  const GpuWork w = lower_gemv_gpu({1, 64, 32}, {GemmWeights::kI8PerGroup, 32});
  ASSERT_EQ(w.kernels.size(), 2u);
  EXPECT_DOUBLE_EQ(w.kernels[0].flops, 4096);
  EXPECT_EQ(w.kernels[0].dram_bytes, 2496u);
  EXPECT_DOUBLE_EQ(w.kernels[1].flops, 128);
  for (const auto& k : w.kernels) {
    EXPECT_EQ(k.rows, 0u) << k.name;
    EXPECT_TRUE(k.streaming) << k.name;
  }
  EXPECT_THROW(lower_gemv_gpu({3, 8, 8}, {GemmWeights::kF16}), std::invalid_argument);
}

TEST(GemvLower, FormatDispatchIsTheGemmFaces) {
  const GemmDims d{5, 64, 32};
  EXPECT_EQ(lower_gemm_cpu(d, {GemmWeights::kF32}, 2).tasks[0].dram_bytes, lower_gemm_f32_cpu(d, 2).tasks[0].dram_bytes);
  EXPECT_EQ(lower_gemm_cpu(d, {GemmWeights::kI8}, 2).tasks[0].dram_bytes, lower_gemm_i8_cpu(d, 2).tasks[0].dram_bytes);
  EXPECT_EQ(lower_gemm_gpu(d, {GemmWeights::kF16}).kernels[0].dram_bytes, lower_gemm_f16_gpu(d).kernels[0].dram_bytes);
  EXPECT_EQ(lower_gemm_gpu(d, {GemmWeights::kBlock, 128, BlockFormat::kQ8_0}).kernels[0].dram_bytes,
            lower_gemm_w4a16_gpu(d, BlockFormat::kQ8_0).kernels[0].dram_bytes);
  // The weights' own buffer, which gpu.max_allocation limits: k n bytes at INT8, 34 per Q8_0 block.
  EXPECT_EQ(lower_gemm_gpu(d, {GemmWeights::kI8}).kernels[0].weight_bytes, 64u * 32u);
  EXPECT_EQ(lower_matvec_gpu(d, {GemmWeights::kBlock, 128, BlockFormat::kQ8_0}).kernels[0].weight_bytes, 2u * 32u * 34u);
}

TEST(GemvLowerNpu, StreamsTheWeightsOnAllHvxThreads) {
  const auto spec = test::small_npu();  // 64 FP16 lanes, 4 packets per MAC vector, qfloat, 4 contexts
  // Q4_0 1 x 4096 x 1024: 1024 x 128 blocks x 18 B = 2,359,296 B; 4,194,304 MACs / 64 = 65,536
  // vectors x 4 = 262,144 packets + 65,536 weight vectors x (4 + 1 qfloat) = 327,680.
  NpuWork w = lower_gemv_npu({1, 4096, 1024}, kQ4, spec);
  ASSERT_EQ(w.steps.size(), 1u);
  EXPECT_EQ(w.steps[0].kind, NpuStep::Kind::kHvxStream);
  EXPECT_EQ(w.steps[0].bytes, 2'359'296u);
  EXPECT_DOUBLE_EQ(w.steps[0].packets, 589'824);
  EXPECT_EQ(w.steps[0].threads, 4u);
  // The vendor runtime's integer path, same bytes: 65,536 vectors x 4 / 2 (INT8 rate) = 131,072
  // + 65,536 weight vectors x 1 unpack = 196,608.
  w = lower_gemv_npu({1, 4096, 1024}, kQ4, spec, GemvArithmetic::kInteger);
  EXPECT_EQ(w.steps[0].bytes, 2'359'296u);
  EXPECT_DOUBLE_EQ(w.steps[0].packets, 196'608);
  // FP16 1 x 100 x 10: 2000 B; ceil(1000 / 64) = 16 vectors x 4 = 64.
  w = lower_gemv_npu({1, 100, 10}, {GemmWeights::kF16}, spec);
  EXPECT_EQ(w.steps[0].bytes, 2000u);
  EXPECT_DOUBLE_EQ(w.steps[0].packets, 64);
  // INT8 1 x 256 x 256: 65,536 B; 1024 vectors x 2 (two MACs per lane pair) = 2048.
  w = lower_gemv_npu({1, 256, 256}, {GemmWeights::kI8}, spec);
  EXPECT_EQ(w.steps[0].bytes, 65'536u);
  EXPECT_DOUBLE_EQ(w.steps[0].packets, 2048);
  // Per-group G 128, 1 x 300 x 64, no qfloat: 19,200 + 2 B x 64 x 3 groups = 19,584 B;
  // 300 vectors x 2 + 300 weight vectors x 1 scale multiply = 900.
  w = lower_gemv_npu({1, 300, 64}, {GemmWeights::kI8PerGroup, 128}, test::small_npu(false));
  EXPECT_EQ(w.steps[0].bytes, 19'584u);
  EXPECT_DOUBLE_EQ(w.steps[0].packets, 900);
  EXPECT_THROW(lower_gemv_npu({1, 8, 8}, {GemmWeights::kF32}, spec), std::invalid_argument);
  EXPECT_THROW(lower_gemv_npu({1, 8, 8}, {GemmWeights::kBlock, 128, BlockFormat::kQ8_0}, spec), std::invalid_argument);
}

TEST(GemvLower, GpuMatVecPassesPerEightRows) {
  // A decode batch of 11 rows: passes of 8 and 3 rows, each a streaming kernel reading the Q4_0
  // weights (2048 x 512 at 18 B per 32) once, with its own rows' flops.
  const GemmFormat q4{GemmWeights::kBlock, 128, BlockFormat::kQ4_0};
  const GpuWork w = lower_matvec_gpu({11, 2048, 512}, q4);
  ASSERT_EQ(w.kernels.size(), 2u);
  const GpuWork one = lower_gemv_gpu({1, 2048, 512}, q4);
  for (const auto& k : w.kernels) {
    EXPECT_TRUE(k.streaming);
    EXPECT_EQ(k.rows, 0u);
    EXPECT_GE(k.dram_bytes, 2048u / 32 * 18 * 512);
  }
  EXPECT_DOUBLE_EQ(w.kernels[0].flops, 8 * one.kernels[0].flops);
  EXPECT_DOUBLE_EQ(w.kernels[1].flops, 3 * one.kernels[0].flops);
  EXPECT_THROW(lower_matvec_gpu({0, 8, 8}, q4), std::invalid_argument);
}

TEST(GemvLower, CpuMatVecIsUnpaddedAndLinearInRows) {
  // A decode batch of 5 rows on the CPU: the GEMM face's ops and bytes with rows = 0 (no 64-row
  // micro-kernel blocks), so 5 rows cost 5 rows of dot products over one pass of the weights.
  const GemmFormat q4{GemmWeights::kBlock, 128, BlockFormat::kQ4_0};
  const CpuWork w = lower_matvec_cpu({5, 2048, 512}, q4, 4), g = lower_gemm_cpu({5, 2048, 512}, q4, 4);
  ASSERT_EQ(w.tasks.size(), 1u);
  EXPECT_EQ(w.tasks[0].rows, 0u);
  EXPECT_EQ(g.tasks[0].rows, 5u);
  EXPECT_DOUBLE_EQ(w.tasks[0].ops, g.tasks[0].ops);
  EXPECT_EQ(w.tasks[0].dram_bytes, g.tasks[0].dram_bytes);
  EXPECT_DOUBLE_EQ(w.tasks[0].ops, 5 * lower_gemv_cpu({1, 2048, 512}, q4, 4).tasks[0].ops);
  EXPECT_EQ(w.threads, 4u);
}

}  // namespace
}  // namespace socsim::kernels
