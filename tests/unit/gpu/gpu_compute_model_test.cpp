// The GPU compute-time model: the efficiency curve at chosen sizes, dtype rates, the linear rise
// and plateau of achieved FLOPS (HeteroLLM 3.1), and argument checks. Spec: gpu_test_spec.h.
#include "sim/hw/gpu/gpu_compute_model.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <stdexcept>

#include "tests/unit/gpu/gpu_test_spec.h"

namespace socsim::hw {
namespace {

using testing::small_gpu_spec;

GpuKernel kernel(double flops, std::uint64_t rows = 0, DType dtype = DType::kFp16) {
  GpuKernel k;
  k.name = "k";
  k.flops = flops;
  k.rows = rows;
  k.dtype = dtype;
  return k;
}

TEST(GpuComputeModel, EfficiencyCurveAtChosenSizes) {
  const GpuSpec g = small_gpu_spec();
  // flops at the half-point: 0.5 * 1e9/2e9 = 0.25; three times it: 0.5 * 3e9/4e9 = 0.375.
  EXPECT_DOUBLE_EQ(gpu_efficiency(g, kernel(1e9)), 0.25);
  EXPECT_DOUBLE_EQ(gpu_efficiency(g, kernel(3e9)), 0.375);
  // Rows pad the work to M + 64 rows, then the ramp's fixed 1e9 is added:
  // 64 rows -> 0.5 x 1e9 / (2e9 + 1e9) = 1/6; 32 -> 0.5 x 1e9 / (3e9 + 1e9) = 0.125;
  // 192 -> 0.5 x 1e9 / (1e9 x 256/192 + 1e9) = 0.5 x 3/7.
  EXPECT_DOUBLE_EQ(gpu_efficiency(g, kernel(1e9, 64)), 1.0 / 6.0);
  EXPECT_DOUBLE_EQ(gpu_efficiency(g, kernel(1e9, 32)), 0.125);
  EXPECT_DOUBLE_EQ(gpu_efficiency(g, kernel(1e9, 192)), 1.5 / 7.0);
  // Very large kernels approach peak_efficiency; no arithmetic, no efficiency.
  EXPECT_NEAR(gpu_efficiency(g, kernel(1e15)), 0.5, 1e-6);
  EXPECT_DOUBLE_EQ(gpu_efficiency(g, kernel(0)), 0.0);
}

TEST(GpuComputeModel, ComputeTimeFromTheCurve) {
  const GpuSpec g = small_gpu_spec();
  // 1e9 FLOP at 1e12 x 0.25 = 2.5e11 FLOP/s = 4 ms; 3e9 at 3.75e11 = 8 ms.
  EXPECT_EQ(gpu_compute_time(g, kernel(1e9)), 4 * kMillisecond);
  EXPECT_EQ(gpu_compute_time(g, kernel(3e9)), 8 * kMillisecond);
  // 64 rows: (2e9 + 1e9) / 5e11 = 6 ms; 32 rows: (3e9 + 1e9) / 5e11 = 8 ms. Large kernels tend to
  // (32 + 64)/32 over (64 + 64)/64 = 1.5x per FLOP for 32 rows against 64 (the llm.npu Table 3
  // ratio that half_efficiency_rows reproduces on the 8 Gen 3).
  EXPECT_EQ(gpu_compute_time(g, kernel(1e9, 64)), 6 * kMillisecond);
  EXPECT_EQ(gpu_compute_time(g, kernel(1e9, 32)), 8 * kMillisecond);
  EXPECT_EQ(gpu_compute_time(g, kernel(0)), 0u);
}

// More rows of the same GEMM never take less time (the fixed part of the size ramp is not scaled
// by the rows: a 2-row kernel used to cost 57/2 times a 1-row kernel's fixed part, so a 2-token GPU
// prefill took longer than an 8-token one).
TEST(GpuComputeModel, MoreRowsNeverTakeLess) {
  const GpuSpec g = small_gpu_spec();
  Tick last = 0;
  for (std::uint64_t rows = 1; rows <= 512; ++rows) {
    const Tick t = gpu_compute_time(g, kernel(2.0 * 64 * 64 * static_cast<double>(rows), rows));
    EXPECT_GE(t, last) << rows;
    last = t;
  }
  // A tiny kernel costs about the fixed part, whatever its rows: 1e9 / 5e11 = 2 ms.
  EXPECT_NEAR(to_seconds(gpu_compute_time(g, kernel(8192, 1))), 2e-3, 1e-5);
}

TEST(GpuComputeModel, DtypePicksTheRate) {
  const GpuSpec g = small_gpu_spec();
  EXPECT_DOUBLE_EQ(gpu_peak_flops_per_s(g, DType::kFp16), 1e12);   // 4 x 250 x 1e9
  EXPECT_DOUBLE_EQ(gpu_peak_flops_per_s(g, DType::kW4A16), 1e12);  // dequantized to FP16 math
  EXPECT_DOUBLE_EQ(gpu_peak_flops_per_s(g, DType::kFp32), 5e11);   // 4 x 125 x 1e9
  EXPECT_DOUBLE_EQ(gpu_peak_flops_per_s(g, DType::kInt8), 2e12);   // 4 x 500 x 1e9
  // 1e9 FLOP at efficiency 0.25: fp32 1.25e11/s = 8 ms; int8 5e11/s = 2 ms; w4a16 as fp16 4 ms.
  EXPECT_EQ(gpu_compute_time(g, kernel(1e9, 0, DType::kFp32)), 8 * kMillisecond);
  EXPECT_EQ(gpu_compute_time(g, kernel(1e9, 0, DType::kInt8)), 2 * kMillisecond);
  EXPECT_EQ(gpu_compute_time(g, kernel(1e9, 0, DType::kW4A16)), 4 * kMillisecond);
}

TEST(GpuComputeModel, AchievedFlopsRiseLinearlyThenPlateau) {
  const GpuSpec g = small_gpu_spec();
  // time = (flops + 1e9) / (1e12 x 0.5), so achieved = 5e11 x flops / (flops + 1e9):
  // 1e7 -> 4.950e9/s, 2e7 -> 9.804e9/s (about twice: the linear part), 1e13 -> ~5e11 (plateau).
  auto achieved = [&](double flops) { return flops / to_seconds(gpu_compute_time(g, kernel(flops))); };
  EXPECT_NEAR(achieved(1e7), 5e11 * 1e7 / 1.01e9, 1e3);
  EXPECT_NEAR(achieved(2e7), 5e11 * 2e7 / 1.02e9, 1e3);
  EXPECT_NEAR(achieved(2e7) / achieved(1e7), 1.98, 0.01);
  EXPECT_NEAR(achieved(1e13), 5e11, 5e11 * 1e-3);
  // Doubling a large kernel nearly doubles its time (compute-bound), a small one barely moves it
  // (time = (flops + 1e9) / 5e11): 1e7 -> 2.02 ms, 2e7 -> 2.04 ms.
  EXPECT_EQ(gpu_compute_time(g, kernel(1e7)), 2'020'000'000u);
  EXPECT_EQ(gpu_compute_time(g, kernel(2e7)), 2'040'000'000u);
}

TEST(GpuComputeModel, ZeroHalfPointsMeanFlatEfficiency) {
  GpuSpec g = small_gpu_spec();
  g.half_efficiency_flops = 0;
  g.half_efficiency_rows = 0;
  EXPECT_DOUBLE_EQ(gpu_efficiency(g, kernel(1e3, 1)), 0.5);
  // 1e9 FLOP at 5e11 FLOP/s = 2 ms.
  EXPECT_EQ(gpu_compute_time(g, kernel(1e9, 1)), 2 * kMillisecond);
}

TEST(GpuComputeModel, RejectsBadWorkAndSpecs) {
  const GpuSpec g = small_gpu_spec();
  EXPECT_THROW((void)gpu_compute_time(g, kernel(-1)), std::invalid_argument);
  EXPECT_THROW((void)gpu_compute_time(g, kernel(std::nan(""))), std::invalid_argument);
  EXPECT_THROW((void)gpu_compute_time(g, kernel(std::numeric_limits<double>::infinity())), std::invalid_argument);
  GpuSpec no_fp32 = g;
  no_fp32.fp32_flops_per_cycle = 0;
  EXPECT_THROW((void)gpu_compute_time(no_fp32, kernel(1e9, 0, DType::kFp32)), std::invalid_argument);
  GpuSpec no_efficiency = g;
  no_efficiency.peak_efficiency = 0;
  EXPECT_THROW((void)gpu_compute_time(no_efficiency, kernel(1e9)), std::invalid_argument);
}

}  // namespace
}  // namespace socsim::hw
