// Softmax `lower` against hand counts (arithmetic in the comments; see softmax_lower.cpp and
// op_costs.h for the per-instruction rules). v75: qfloat, so a float op is 2 packets, vgather
// 36; v79: a float op is 1 packet, vgather 24.
#include <gtest/gtest.h>

#include "kernels/softmax/softmax_lower.h"
#include "tests/unit/kernels/elementwise/kernel_test_specs.h"

namespace socsim::kernels {
namespace {

TEST(SoftmaxLower, CpuCounts) {
  // 2 x 1000: 20 ops per element (max, sub, exp 16, sum, scale) + 1 reciprocal per row.
  auto w = lower_softmax_cpu({2, 1000}, 4);
  ASSERT_EQ(w.tasks.size(), 1u);
  EXPECT_DOUBLE_EQ(w.tasks[0].ops, 2 * 1000 * 20 + 2);       // 40002
  EXPECT_EQ(w.tasks[0].dram_bytes, 2u * 1000 * 4 * 2);       // read + write FP32: 16000
  EXPECT_EQ(w.tasks[0].dtype, hw::DType::kFp32);
  EXPECT_EQ(w.threads, 4u);
  // 5 x 64: 5*64*20 + 5 = 6405 ops, 5*64*8 = 2560 bytes.
  w = lower_softmax_cpu({5, 64}, 1);
  EXPECT_DOUBLE_EQ(w.tasks[0].ops, 6405);
  EXPECT_EQ(w.tasks[0].dram_bytes, 2560u);
}

TEST(SoftmaxLower, GpuCounts) {
  // Exact, FP32, 2 x 1000: (4 + 4 SFU exp) per element + 1 per row = 16002 flops; 16000 bytes.
  auto w = lower_softmax_gpu({2, 1000}, ExpVariant::kExact);
  ASSERT_EQ(w.kernels.size(), 1u);
  EXPECT_DOUBLE_EQ(w.kernels[0].flops, 16002);
  EXPECT_EQ(w.kernels[0].dram_bytes, 16000u);
  EXPECT_EQ(w.kernels[0].dtype, hw::DType::kFp32);
  EXPECT_TRUE(w.kernels[0].streaming);
  // LUT, FP16, 5 x 64: (4 + 3) * 320 + 5 = 2245 flops; 320 * 2 B * 2 = 1280 bytes.
  w = lower_softmax_gpu({5, 64}, ExpVariant::kLut);
  EXPECT_DOUBLE_EQ(w.kernels[0].flops, 2245);
  EXPECT_EQ(w.kernels[0].dram_bytes, 1280u);
  EXPECT_EQ(w.kernels[0].dtype, hw::DType::kFp16);
  // Poly, FP16, 5 x 64: (4 + 10) * 320 + 5 = 4485.
  EXPECT_DOUBLE_EQ(lower_softmax_gpu({5, 64}, ExpVariant::kPoly).kernels[0].flops, 4485);
}

TEST(SoftmaxLower, HvxExpPerVector) {
  const auto v75 = test::v75().hvx, v79 = test::v79().hvx;
  // Poly: 8 fop + 6 iop -> v75 8*2+6 = 22, v79 8+6 = 14.
  EXPECT_DOUBLE_EQ(hvx_exp_packets_f16(v75, ExpVariant::kPoly), 22);
  EXPECT_DOUBLE_EQ(hvx_exp_packets_f16(v79, ExpVariant::kPoly), 14);
  // LUT: 2 iop + one vgather issue -> 3; its latency once per batch of independent exps.
  EXPECT_DOUBLE_EQ(hvx_exp_packets_f16(v75, ExpVariant::kLut), 3);
  EXPECT_DOUBLE_EQ(hvx_exp_packets_f16(v79, ExpVariant::kLut), 3);
  EXPECT_DOUBLE_EQ(hvx_exp_fill_packets(v75, ExpVariant::kLut), 36);
  EXPECT_DOUBLE_EQ(hvx_exp_fill_packets(v79, ExpVariant::kLut), 24);
  EXPECT_DOUBLE_EQ(hvx_exp_fill_packets(v75, ExpVariant::kPoly), 0);
  // FP32 exp per 32 lanes: 12 fop + 6 iop -> 30 and 18; in FP16 pipeline 2 + 2*30 + 1 = 63.
  EXPECT_DOUBLE_EQ(hvx_exp_packets_f32(v75), 30);
  EXPECT_DOUBLE_EQ(hvx_exp_packets_f32(v79), 18);
  EXPECT_DOUBLE_EQ(hvx_exp_packets_f16(v75, ExpVariant::kExact), 63);
}

TEST(SoftmaxLower, NpuCountsV75) {
  const auto npu = test::v75();
  // 2 rows x 1000 cols. FP16: V = ceil(1000/64) = 16 vectors; per vector 6 iop-ish + 5 fop + exp
  // = 6 + 10 + E; per row 20 + 12 fop = 44.
  //   LUT:  E = 3 -> 16*19 + 44 + 36 (one gather latency) = 384 per row, 768 in total.
  //   poly: E = 22 -> 16*38 + 44 = 652 per row, 1304.
  // FP32 exact: V = ceil(1000/32) = 32; per vector 7 + 15 fop = 37, per row 18 + 11 fop = 40:
  //   32*37 + 40 = 1224 per row, 2448.
  auto w = lower_softmax_npu(npu, {2, 1000}, ExpVariant::kLut, 4);
  ASSERT_EQ(w.steps.size(), 1u);
  EXPECT_EQ(w.steps[0].kind, NpuStep::Kind::kHvx);
  EXPECT_DOUBLE_EQ(w.steps[0].packets, 768);
  EXPECT_EQ(w.steps[0].threads, 2u);  // only 2 rows to spread
  EXPECT_DOUBLE_EQ(lower_softmax_npu(npu, {2, 1000}, ExpVariant::kPoly, 4).steps[0].packets, 1304);
  EXPECT_DOUBLE_EQ(lower_softmax_npu(npu, {2, 1000}, ExpVariant::kExact, 4).steps[0].packets, 2448);
}

TEST(SoftmaxLower, NpuCountsV79) {
  const auto npu = test::v79();
  // 5 rows x 64 cols, fop = 1. FP16: V = 1; per row const 20 + 12 = 32.
  //   LUT:  6 + 5 + 3 = 14 -> 14 + 32 + 24 (gather latency) = 70 per row, 350: a one-vector row
  //         cannot hide the latency, so here the polynomial wins.
  //   poly: 6 + 5 + 14 = 25 -> 57 per row, 285.
  // FP32: V = 2; per vector 7 + 15 = 22, per row 18 + 11 = 29 -> 44 + 29 = 73, 365.
  auto w = lower_softmax_npu(npu, {5, 64}, ExpVariant::kLut, 8);
  EXPECT_DOUBLE_EQ(w.steps[0].packets, 350);
  EXPECT_EQ(w.steps[0].threads, 4u);  // capped by the 4 HVX contexts
  EXPECT_DOUBLE_EQ(lower_softmax_npu(npu, {5, 64}, ExpVariant::kPoly, 1).steps[0].packets, 285);
  EXPECT_DOUBLE_EQ(lower_softmax_npu(npu, {5, 64}, ExpVariant::kExact, 1).steps[0].packets, 365);
  EXPECT_EQ(lower_softmax_npu(npu, {5, 64}, ExpVariant::kExact, 1).steps[0].threads, 1u);
}

}  // namespace
}  // namespace socsim::kernels
