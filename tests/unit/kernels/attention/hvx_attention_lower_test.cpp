// HVX-only attention `lower` against hand counts (rules in hvx_attention_lower.h; the softmax
// part is softmax_lower's, checked in its own tests, so it is added through its function).
#include <gtest/gtest.h>

#include "kernels/attention/hvx_attention_lower.h"
#include "kernels/softmax/softmax_lower.h"
#include "tests/unit/kernels/elementwise/kernel_test_specs.h"

namespace socsim::kernels {
namespace {

TEST(HvxAttentionLower, TwoRowsGqa) {
  const auto npu = test::v75();  // 64 FP16 lanes, 3.9 packets per vector MAC, 4 contexts
  // heads 2 (one KV head), d 64, rows at positions 126 and 127 of 128 keys.
  const AttentionShape s{2, 1, 64, 2, 126, 128};
  // Row 0 sees 127 keys: scores ceil(127/64) = 2 vectors x 64 x 3.9 = 499.2; context 1 x 127 x 3.9 = 495.3.
  // Row 1 sees 128 keys: 499.2 + 1 x 128 x 3.9 = 499.2.
  const double softmax = hvx_softmax_row_packets(npu.hvx, 127, ExpVariant::kLut) + hvx_softmax_row_packets(npu.hvx, 128, ExpVariant::kLut);
  const double per_head = 499.2 + 495.3 + 499.2 + 499.2 + softmax;
  const auto w = lower_attention_hvx_npu(npu, s, ExpVariant::kLut, 8);
  ASSERT_EQ(w.steps.size(), 2u);  // one step per head
  for (const auto& step : w.steps) {
    EXPECT_EQ(step.kind, NpuStep::Kind::kHvx);
    EXPECT_NEAR(step.packets, per_head, 1e-9);
    EXPECT_EQ(step.threads, 2u);  // min(asked 8, 4 contexts, 2 rows)
  }
}

TEST(HvxAttentionLower, SingleKeyWideHead) {
  const auto npu = test::v79();
  // One row, one key, d 128: scores 1 vector x 128 x 3.9 = 499.2; context 2 vectors x 1 x 3.9 = 7.8.
  const AttentionShape s{1, 1, 128, 1, 0, 1};
  const auto w = lower_attention_hvx_npu(npu, s, ExpVariant::kPoly, 4);
  ASSERT_EQ(w.steps.size(), 1u);
  EXPECT_NEAR(w.steps[0].packets, 499.2 + 7.8 + hvx_softmax_row_packets(npu.hvx, 1, ExpVariant::kPoly), 1e-9);
  EXPECT_EQ(w.steps[0].threads, 1u);
}

}  // namespace
}  // namespace socsim::kernels
