#include "kernels/gemm/graph_activation_layout.h"

#include <gtest/gtest.h>

#include "kernel_test_util.h"

namespace socsim::kernels {
namespace {

using Layout = GraphActivationLayout;

// The kernels' small NPU with a DMA path (the search times whole plans) and 8-bit 8h8w / 16-bit
// 8h4w croutons.
hw::NpuSpec npu() {
  auto n = test::small_npu(false);
  n.dma = {2e9, 100 * kNanosecond, 1};
  n.port_bandwidth = 4e9;
  n.layout = {8, 8, 4};
  return n;
}

TEST(GraphActivationLayout, PackedAndTokenMajorAreFixed) {
  const hw::GemmShape s{1024, 256, 256, hw::DType::kInt8, 0};
  EXPECT_EQ(graph_activation_width(npu(), s, hw::OperandHome::kDram, Layout::kPacked), 0u);
  EXPECT_EQ(graph_activation_width(npu(), s, hw::OperandHome::kDram, Layout::kTokensAsHeight), 1u);
}

TEST(GraphActivationLayout, EquivalentShapeFindsAPaddingFreeFactorization) {
  // 1024 tokens: [1024, 1] pads to 8x the positions in 8-bit croutons; a factorization with the
  // height a multiple of 8 and the width of 8 pads nothing, and it is the fastest.
  for (const auto dtype : {hw::DType::kInt8, hw::DType::kFp16}) {
    const hw::GemmShape s{1024, 256, 256, dtype, 0};
    const std::uint64_t w = graph_activation_width(npu(), s, hw::OperandHome::kDram, Layout::kEquivalentShape);
    ASSERT_GT(w, 0u);
    ASSERT_EQ(1024 % w, 0u);
    hw::GemmShape chosen = s, column = s;
    chosen.width = w;
    column.width = 1;
    EXPECT_EQ(hw::stored_rows(npu(), chosen), 1024u) << "width " << w;
    const double t_chosen = hw::idle_plan_seconds(npu(), hw::plan_hmx_gemm(npu(), chosen, hw::OperandHome::kDram));
    const double t_column = hw::idle_plan_seconds(npu(), hw::plan_hmx_gemm(npu(), column, hw::OperandHome::kDram));
    EXPECT_LT(t_chosen, t_column);
    // No other factorization is faster.
    for (std::uint64_t d = 1; d <= 1024; d *= 2) {
      hw::GemmShape other = s;
      other.width = d;
      EXPECT_LE(t_chosen, hw::idle_plan_seconds(npu(), hw::plan_hmx_gemm(npu(), other, hw::OperandHome::kDram))) << d;
    }
  }
}

TEST(GraphActivationLayout, APrimeTokenCountHasOnlyPaddedShapes) {
  // 31 tokens: [31, 1] or [1, 31], both padded; the search returns one of them.
  const hw::GemmShape s{31, 64, 64, hw::DType::kInt8, 0};
  const std::uint64_t w = graph_activation_width(npu(), s, hw::OperandHome::kDram, Layout::kEquivalentShape);
  EXPECT_TRUE(w == 1 || w == 31) << w;
  hw::GemmShape chosen = s;
  chosen.width = w;
  EXPECT_EQ(hw::stored_rows(npu(), chosen), 32u * 8);
}

}  // namespace
}  // namespace socsim::kernels
