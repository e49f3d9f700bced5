// Softmax `lower` against hand counts (arithmetic in the comments; the instruction mixes are in
// softmax_lower.cpp, the VLIW resource rule in hvx_mix.h). v75: one shift resource, vgather 36;
// v79: two shift-capable resources, vgather 24.
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

TEST(SoftmaxLower, VliwPacketsTakeTheBusiestResource) {
  const auto v75 = test::v75().hvx, v79 = test::v79().hvx;
  // 4 qfloat adds (shift) + 2 qfloat multiplies (both multiply resources each) + 2 vmax (any):
  // shift 4, multiply 2, compute (2 + 4 + 4) / 4 = 2.5, issue 8 / 4 = 2 -> 4 on V75; V79 spreads
  // the adds over shift and permute: 2 -> the multiplies and compute bound it at 2.5.
  const HvxMix m{.va = 2, .vs = 4, .vx_dv = 2};
  EXPECT_DOUBLE_EQ(vliw_packets(m, v75), 4);
  EXPECT_DOUBLE_EQ(vliw_packets(m, v79), 2.5);
  // Pure loads: one load resource; a gather holds the thread's gather path for its latency.
  EXPECT_DOUBLE_EQ(vliw_packets({.loads = 3}, v75), 3);
  EXPECT_DOUBLE_EQ(vliw_packets({.va = 1, .gathers = 2}, v75), 72);
}

TEST(SoftmaxLower, HvxExpPerVector) {
  const auto v75 = test::v75().hvx, v79 = test::v79().hvx;
  // Poly (16 VS, 6 VX_DV, 3 VA): shift-bound, 16 on V75; 8 on V79 (two shift-capable resources).
  EXPECT_DOUBLE_EQ(hvx_exp_packets_f16(v75, ExpVariant::kPoly), 16);
  EXPECT_DOUBLE_EQ(hvx_exp_packets_f16(v79, ExpVariant::kPoly), 8);
  // LUT: one vgather per 64 values: its 36 (24) packets.
  EXPECT_DOUBLE_EQ(hvx_exp_packets_f16(v75, ExpVariant::kLut), 36);
  EXPECT_DOUBLE_EQ(hvx_exp_packets_f16(v79, ExpVariant::kLut), 24);
  // FP32 path per 64 (39 VS, 12 VX_DV, 13 VA): 39; V79 19.5 (compute (13 + 39 + 24) / 4 = 19).
  EXPECT_DOUBLE_EQ(hvx_exp_packets_f16(v75, ExpVariant::kExact), 39);
  EXPECT_DOUBLE_EQ(hvx_exp_packets_f16(v79, ExpVariant::kExact), 19.5);
  // FP32 exp per 32 lanes (17 VS, 7 VX_DV, 3 VA): 17; V79 max(8.5, (3 + 17 + 14) / 4 = 8.5).
  EXPECT_DOUBLE_EQ(hvx_exp_packets_f32(v75), 17);
  EXPECT_DOUBLE_EQ(hvx_exp_packets_f32(v79), 8.5);
}

TEST(SoftmaxLower, NpuCountsV75) {
  const auto npu = test::v75();
  // Per 64 values, besides exp: 1 VA (max), 4 VS (subtract, 2 sum adds, qf16 -> hf), 2 VX_DV
  // (widen, normalize), 3 loads, 2 stores. Per row (9 VA, 9 VS, 4 VX_DV, 11 VP): permute-bound, 11.
  //   LUT:   + 1 VS, 1 load, the gather's store replacing one, 1 gather -> gather-bound 36
  //   poly:  + 16 VS + 1 (its qf16 result to hf), 6 VX_DV, 3 VA -> 21 VS: 21
  //   exact: + 39 VS, 12 VX_DV, 13 VA -> 43 VS: 43
  // 2 rows x 1000 cols: 16 vectors per row: LUT 16*36 + 11 = 587 per row, 1174; poly 16*21 + 11 =
  // 347, 694; exact 16*43 + 11 = 699, 1398.
  auto w = lower_softmax_npu(npu, {2, 1000}, ExpVariant::kLut, 4);
  ASSERT_EQ(w.steps.size(), 1u);
  EXPECT_EQ(w.steps[0].kind, NpuStep::Kind::kHvx);
  EXPECT_DOUBLE_EQ(w.steps[0].packets, 1174);
  EXPECT_EQ(w.steps[0].threads, 2u);  // only 2 rows to spread
  EXPECT_DOUBLE_EQ(lower_softmax_npu(npu, {2, 1000}, ExpVariant::kPoly, 4).steps[0].packets, 694);
  EXPECT_DOUBLE_EQ(lower_softmax_npu(npu, {2, 1000}, ExpVariant::kExact, 4).steps[0].packets, 1398);
}

TEST(SoftmaxLower, NpuCountsV79) {
  const auto npu = test::v79();
  // 5 rows x 64 cols, one vector per row; row 11 (permute-bound). LUT 24 + 11 = 35, 175; poly
  // 21 VS over two resources 10.5 + 11 = 21.5, 107.5; exact 43 / 2 = 21.5 + 11 = 32.5, 162.5.
  auto w = lower_softmax_npu(npu, {5, 64}, ExpVariant::kLut, 8);
  EXPECT_DOUBLE_EQ(w.steps[0].packets, 175);
  EXPECT_EQ(w.steps[0].threads, 4u);  // capped by the 4 HVX contexts
  EXPECT_DOUBLE_EQ(lower_softmax_npu(npu, {5, 64}, ExpVariant::kPoly, 1).steps[0].packets, 107.5);
  EXPECT_DOUBLE_EQ(lower_softmax_npu(npu, {5, 64}, ExpVariant::kExact, 1).steps[0].packets, 162.5);
  EXPECT_EQ(lower_softmax_npu(npu, {5, 64}, ExpVariant::kExact, 1).steps[0].threads, 1u);
}

}  // namespace
}  // namespace socsim::kernels
