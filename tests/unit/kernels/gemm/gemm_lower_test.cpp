#include "kernels/gemm/gemm_lower.h"

#include <gtest/gtest.h>

namespace socsim::kernels {
namespace {

using hw::DType;

const GemmDims kBig{64, 2048, 2048};  // llm.npu Table 3, first row
const GemmDims kOdd{1, 33, 17};       // a GEMV with a short last Q block

void expect_cpu(const CpuWork& w, std::size_t task, double ops, DType dtype, std::uint64_t bytes, std::uint64_t rows) {
  ASSERT_GT(w.tasks.size(), task);
  EXPECT_DOUBLE_EQ(w.tasks[task].ops, ops);
  EXPECT_EQ(w.tasks[task].dtype, dtype);
  EXPECT_EQ(w.tasks[task].dram_bytes, bytes);
  EXPECT_EQ(w.tasks[task].rows, rows);
}

void expect_gpu(const GpuWork& w, std::size_t k, double flops, DType dtype, std::uint64_t bytes, std::uint64_t rows) {
  ASSERT_GT(w.kernels.size(), k);
  EXPECT_DOUBLE_EQ(w.kernels[k].flops, flops);
  EXPECT_EQ(w.kernels[k].dtype, dtype);
  EXPECT_EQ(w.kernels[k].dram_bytes, bytes);
  EXPECT_EQ(w.kernels[k].rows, rows);
}

// 2*64*2048*2048 = 536,870,912; 2*1*33*17 = 1,122.
constexpr double kBigOps = 536'870'912.0, kOddOps = 1122.0;

TEST(GemmLowerCpuGpu, Int8) {
  // k n + m k + 4 m n = 4,194,304 + 131,072 + 524,288 = 4,849,664; odd: 561 + 33 + 68 = 662.
  expect_cpu(lower_gemm_i8_cpu(kBig, 4), 0, kBigOps, DType::kInt8, 4'849'664, 64);
  EXPECT_EQ(lower_gemm_i8_cpu(kBig, 4).threads, 4u);
  expect_cpu(lower_gemm_i8_cpu(kOdd, 1), 0, kOddOps, DType::kInt8, 662, 1);
  expect_gpu(lower_gemm_i8_gpu(kBig), 0, kBigOps, DType::kInt8, 4'849'664, 64);
  expect_gpu(lower_gemm_i8_gpu(kOdd), 0, kOddOps, DType::kInt8, 662, 0);  // m = 1: a GEMV kernel
}

TEST(GemmLowerCpuGpu, Fp32AndFp16) {
  // (k n + m k + m n) = 4,194,304 + 131,072 + 131,072 = 4,456,448 elements; odd 561 + 33 + 17 = 611.
  expect_cpu(lower_gemm_f32_cpu(kBig, 2), 0, kBigOps, DType::kFp32, 4 * 4'456'448ull, 64);
  expect_cpu(lower_gemm_f32_cpu(kOdd, 2), 0, kOddOps, DType::kFp32, 2444, 1);
  expect_gpu(lower_gemm_f32_gpu(kBig), 0, kBigOps, DType::kFp32, 4 * 4'456'448ull, 64);
  expect_gpu(lower_gemm_f32_gpu(kOdd), 0, kOddOps, DType::kFp32, 2444, 0);
  expect_cpu(lower_gemm_f16_cpu(kBig, 2), 0, kBigOps, DType::kFp16, 2 * 4'456'448ull, 64);
  expect_cpu(lower_gemm_f16_cpu(kOdd, 2), 0, kOddOps, DType::kFp16, 1222, 1);
  expect_gpu(lower_gemm_f16_gpu(kBig), 0, kBigOps, DType::kFp16, 2 * 4'456'448ull, 64);
  expect_gpu(lower_gemm_f16_gpu(kOdd), 0, kOddOps, DType::kFp16, 1222, 0);
}

TEST(GemmLowerCpuGpu, Q4AndQ8Weights) {
  // Q4_0: 2048 columns x 64 blocks x 18 B = 2,359,296 (4.5 bits x 4M weights) + FP16 activations
  // 262,144 + FP16 outputs 262,144 = 2,883,584. Odd: 17 x 2 blocks x 18 = 612 + 66 + 34 = 712.
  EXPECT_EQ(block_weight_bytes(2048, 2048, BlockFormat::kQ4_0), 2'359'296u);
  expect_cpu(lower_gemm_w4a16_cpu(kBig, BlockFormat::kQ4_0, 4), 0, kBigOps, DType::kW4A16, 2'883'584, 64);
  expect_cpu(lower_gemm_w4a16_cpu(kOdd, BlockFormat::kQ4_0, 4), 0, kOddOps, DType::kW4A16, 712, 1);
  expect_gpu(lower_gemm_w4a16_gpu(kBig, BlockFormat::kQ4_0), 0, kBigOps, DType::kW4A16, 2'883'584, 64);
  expect_gpu(lower_gemm_w4a16_gpu(kOdd, BlockFormat::kQ4_0), 0, kOddOps, DType::kW4A16, 712, 0);
  // Q8_0: 2048 x 64 x 34 = 4,456,448 + 524,288 = 4,980,736. Odd: 17 x 2 x 34 = 1156 + 100 = 1256.
  expect_cpu(lower_gemm_w4a16_cpu(kBig, BlockFormat::kQ8_0, 4), 0, kBigOps, DType::kInt8, 4'980'736, 64);
  expect_cpu(lower_gemm_w4a16_cpu(kOdd, BlockFormat::kQ8_0, 4), 0, kOddOps, DType::kInt8, 1256, 1);
  expect_gpu(lower_gemm_w4a16_gpu(kBig, BlockFormat::kQ8_0), 0, kBigOps, DType::kFp16, 4'980'736, 64);
  expect_gpu(lower_gemm_w4a16_gpu(kOdd, BlockFormat::kQ8_0), 0, kOddOps, DType::kFp16, 1256, 0);
}

TEST(GemmLowerCpuGpu, PerGroupAddsAFloatReduction) {
  // G = 128: 16 groups. Bytes 4,194,304 + 16 x 2048 x 4 (scales) = 4,325,376 + 131,072 + 524,288
  // = 4,980,736; reduction 2 x 64 x 2048 x 16 = 4,194,304 FP32 ops.
  const CpuWork c = lower_gemm_i8_per_group_cpu(kBig, 128, 4);
  ASSERT_EQ(c.tasks.size(), 2u);
  expect_cpu(c, 0, kBigOps, DType::kInt8, 4'980'736, 64);
  expect_cpu(c, 1, 4'194'304.0, DType::kFp32, 0, 0);
  const GpuWork g = lower_gemm_i8_per_group_gpu(kBig, 128);
  expect_gpu(g, 0, kBigOps, DType::kInt8, 4'980'736, 64);
  expect_gpu(g, 1, 4'194'304.0, DType::kFp32, 0, 0);
  // Odd, G = 7: 5 groups. 561 + 5 x 17 x 4 = 901 + 33 + 68 = 1002; reduction 2 x 17 x 5 = 170.
  const CpuWork o = lower_gemm_i8_per_group_cpu(kOdd, 7, 1);
  expect_cpu(o, 0, kOddOps, DType::kInt8, 1002, 1);
  expect_cpu(o, 1, 170.0, DType::kFp32, 0, 0);
  expect_gpu(lower_gemm_i8_per_group_gpu(kOdd, 7), 1, 170.0, DType::kFp32, 0, 0);
  EXPECT_THROW(lower_gemm_i8_per_group_cpu(kOdd, 0, 1), std::invalid_argument);
}

}  // namespace
}  // namespace socsim::kernels
