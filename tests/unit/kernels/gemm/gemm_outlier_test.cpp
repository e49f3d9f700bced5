#include "kernels/gemm/outlier_gemm.h"

#include <gtest/gtest.h>

#include <cmath>

#include "kernel_test_util.h"
#include "kernels/gemm/gemm_int8.h"
#include "kernels/quant/int8_quant.h"

namespace socsim::kernels {
namespace {

// llm.npu's shadow execution end to end: x w ~ NPU W8A8(inliers) + CPU(outliers) w.
TEST(GemmOutlierShadow, InlierW8A8PlusOutlierGemmRecoversTheProduct) {
  Tensor x = test::random_f32(6, 40, 41);
  x.data<float>()[2 * 40 + 5] = 300.0f;     // outliers well beyond the calibrated range
  x.data<float>()[4 * 40 + 5] = -1e4f;
  x.data<float>()[0 * 40 + 31] = 25.5f;
  const float sa = 1.0f / 127;              // offline scale: range [-1, 1]
  const Tensor wf = test::random_f32(40, 9, 42);
  const auto qw = quantize_per_tensor(wf);
  const Tensor w_deq = dequantize_per_tensor(qw.q, qw.scale);

  const OutlierSplit split = split_outliers(x, sa);
  ASSERT_EQ(split.outliers.entries.size(), 3u);
  EXPECT_EQ(split.outliers.channels(), (std::vector<std::int32_t>{5, 31}));
  const auto qa = quantize_per_tensor(split.inliers, sa);
  Tensor y = dequantize_i32(gemm_i8(qa.q, qw.q), sa, qw.scale);
  add_outlier_gemm(split.outliers, qw.q, qw.scale, y);

  // Against x * w_deq: only the inliers' quantization error (<= sa/2 each) remains.
  const auto ref = test::ref_gemm_f64<float>(x, w_deq);
  for (std::size_t i = 0; i < ref.c.size(); ++i) {
    EXPECT_NEAR(y.data<float>()[i], ref.c[i], 40 * sa / 2 * 1.01 + 1e-6 * ref.abs_sum[i]) << i;
  }
}

TEST(GemmOutlierShadow, AddsEachEntryTimesItsWeightRow) {
  Tensor w = Tensor::matrix(3, 2, ElemType::kI8);
  auto wq = w.data<std::int8_t>();
  wq[0] = 1, wq[1] = 2, wq[2] = 3, wq[3] = 4, wq[4] = -5, wq[5] = 6;
  SparseOutliers o{2, 3, {{0, 1, 2.0f}, {1, 2, -1.0f}, {1, 1, 0.5f}}};
  Tensor y = Tensor::matrix(2, 2, ElemType::kF32);
  add_outlier_gemm(o, w, 0.5f, y);
  // row 0: 2 * (3, 4) * 0.5 = (3, 4); row 1: -1 * (-5, 6) * 0.5 + 0.5 * (3, 4) * 0.5 = (3.25, -2)
  EXPECT_EQ(y.data<float>()[0], 3.0f);
  EXPECT_EQ(y.data<float>()[1], 4.0f);
  EXPECT_EQ(y.data<float>()[2], 3.25f);
  EXPECT_EQ(y.data<float>()[3], -2.0f);
  Tensor bad = Tensor::matrix(3, 2, ElemType::kF32);
  EXPECT_THROW(add_outlier_gemm(o, w, 0.5f, bad), std::invalid_argument);
}

TEST(GemmOutlierShadow, LowerCountsTheCompactChannelGemm) {
  // 256 rows x 12 channels x 2048 columns: ops 2*256*12*2048 = 12,582,912; bytes: INT8 weight
  // rows 12*2048 = 24,576 + activations 256*12*4 = 12,288 + outputs read+written 2*256*2048*4 =
  // 4,194,304 -> 4,231,168.
  const CpuWork w = lower_outlier_gemm_cpu(256, 12, 2048, 1.0, 4);
  ASSERT_EQ(w.tasks.size(), 1u);
  EXPECT_EQ(w.threads, 4u);
  EXPECT_DOUBLE_EQ(w.tasks[0].ops, 12'582'912.0);
  EXPECT_EQ(w.tasks[0].dram_bytes, 4'231'168u);
  EXPECT_EQ(w.tasks[0].rows, 256u);
  EXPECT_EQ(w.tasks[0].dtype, hw::DType::kFp32);
  // 1 row x 5 channels x 100 columns, FP32 weight rows: ops 1000; bytes 2000 + 20 + 800 = 2820.
  const CpuWork v = lower_outlier_gemm_cpu(1, 5, 100, 4.0, 1);
  EXPECT_DOUBLE_EQ(v.tasks[0].ops, 1000.0);
  EXPECT_EQ(v.tasks[0].dram_bytes, 2820u);
}

}  // namespace
}  // namespace socsim::kernels
