// PlanForward runs the matmuls of consecutive decode steps of a layer together when every
// matmul's precision computes each row on its own (FP32, FP16, W4A16, W8A8 with a profiled scale)
// or can quantize each step's rows with their own scale (per-tensor W8A8, min-max). The numbers
// must be those of one step at a time to the bit, and the batching must happen only where allowed.
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "functional_test_helpers.h"
#include "sim/functional/functional_run.h"
#include "sim/functional/linear.h"
#include "kernels/gemm/w4a16_fused.h"
#include "sim/functional/plan_forward.h"
#include "sim/functional/synthetic_weights.h"
#include "sim/systems/llm_npu/outlier_calibration.h"
#include "tests/unit/kernels/gemm/kernel_test_util.h"

namespace socsim::functional {
namespace {

using kernels::Unit;
using runtime::Precision;
using test::at;

struct Forward {
  std::vector<float> hidden;  // every head group's final-normed rows, in order
  std::uint64_t batches = 0;
};

Forward forward(const model::ModelConfig& m, const runtime::Plan& plan, const ForwardShape& s, std::uint64_t batch_rows,
                bool calibrated = false) {
  const SyntheticWeights w(m, 3);
  PlanForward f(m, plan, s, draw_tokens(s, m.vocab, 3), w);
  f.set_decode_batch_rows(batch_rows);
  if (calibrated) f.set_outlier_calibration(systems::llm_npu::calibrate_outliers(m, w, 9, {2, 16, 0, 2, 0.03}));
  for (std::uint32_t l = 0; l < m.layers; ++l) {
    const LayerWeights lw = w.layer(l);
    f.run_layer(l, lw);
  }
  Forward out;
  for (const HeadGroup& g : f.head_groups(w.final_norm())) {
    const auto d = g.hidden.data<float>();
    out.hidden.insert(out.hidden.end(), d.begin(), d.end());
  }
  out.batches = f.matmul_batches();
  return out;
}

bool same_bits(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

struct Case {
  const char* what;
  model::ModelConfig model;
  systems::Placement matmuls;
  bool batches;  // whether decode steps may share their matmuls
  runtime::OutlierHandling outliers = runtime::OutlierHandling::kMinMax;
  bool calibrated = false;  // llm.npu's profiled activation scales
};

std::vector<Case> cases() {
  using runtime::OutlierHandling;
  return {{"W4A16 on the NPU", test::tiny_model(), at(Unit::kNpu, Precision::kW4A16), true},
          {"FP16 on the GPU", test::tiny_model(), at(Unit::kGpu, Precision::kFp16), true},
          {"FP32 on the CPU, plain MLP", test::tiny_plain_model(), at(Unit::kCpu, Precision::kFp32), true},
          // Each step's rows quantized with their own min-max scale, one GEMM.
          {"per-tensor W8A8 on the NPU", test::tiny_model(), at(Unit::kNpu, Precision::kW8A8), true},
          {"per-tensor W8A8 on the CPU, plain MLP", test::tiny_plain_model(), at(Unit::kCpu, Precision::kW8A8), true},
          // Shadowed outliers: the scale is the input's own without a calibration (not batched),
          // a profiled one with it (batched: every row quantized alike).
          {"W8A8 shadowed outliers", test::tiny_model(), at(Unit::kCpu, Precision::kW8A8), false, OutlierHandling::kShadow},
          {"W8A8 shadowed outliers, calibrated", test::tiny_model(), at(Unit::kCpu, Precision::kW8A8), true, OutlierHandling::kShadow, true},
          {"W8A8 clipped outliers, calibrated", test::tiny_model(), at(Unit::kCpu, Precision::kW8A8), true, OutlierHandling::kClip, true},
          {"per-group INT8 on the NPU", test::tiny_model(), at(Unit::kNpu, Precision::kW8A8Group), false}};
}

TEST(DecodeBatching, SameBitsAsOneStepAtATime) {
  // Prefill in chunks of 4: 3 chunks, then 12 decode steps of 2 sequences: the whole decode is one
  // batch of 24 rows (past W4A16's fused path, kW4A16FusedMaxRows = 16, while one step alone and
  // batches of 4 rows take it).
  const ForwardShape shape{10, 12, 2};
  static_assert(kernels::kW4A16FusedMaxRows < 24 && kernels::kW4A16FusedMaxRows >= 4);
  for (const Case& c : cases()) {
    auto plan = test::uniform_plan(c.model, shape, c.matmuls, at(Unit::kCpu, Precision::kFp32), 4);
    for (auto& j : plan.jobs) {
      if (j.precision == Precision::kW8A8) j.outliers = c.outliers, j.outlier_channels = 2;
    }
    const Forward alone = forward(c.model, plan, shape, 1, c.calibrated);
    const Forward batched = forward(c.model, plan, shape, PlanForward::kBatchRows, c.calibrated);
    const Forward fours = forward(c.model, plan, shape, 4, c.calibrated);  // 2 sequences: 2 steps per batch
    const std::uint64_t L = c.model.layers;
    EXPECT_EQ(alone.batches, L * (3 + 12)) << c.what;
    EXPECT_EQ(batched.batches, c.batches ? L * (3 + 1) : L * (3 + 12)) << c.what;
    EXPECT_EQ(fours.batches, c.batches ? L * (3 + 6) : L * (3 + 12)) << c.what;
    EXPECT_EQ(alone.hidden.size(), (1 + 12) * 2 * c.model.hidden) << c.what;
    EXPECT_TRUE(same_bits(alone.hidden, batched.hidden)) << c.what;
    EXPECT_TRUE(same_bits(alone.hidden, fours.hidden)) << c.what;
  }
}

// The batched forward is the forward: a different token makes different numbers (the comparison
// above cannot pass by computing nothing).
TEST(DecodeBatching, RowsAreTheirOwn) {
  const auto m = test::tiny_model();
  const ForwardShape shape{6, 5, 1};
  const auto plan = test::uniform_plan(m, shape, at(Unit::kNpu, Precision::kW4A16), at(Unit::kCpu, Precision::kFp32));
  const Forward a = forward(m, plan, shape, PlanForward::kBatchRows);
  const Forward b = forward(m, plan, shape, 1);
  ASSERT_TRUE(same_bits(a.hidden, b.hidden));
  // Each decode position's row differs from the one before it (its own token and position).
  const std::size_t h = m.hidden;
  for (std::size_t g = 1; g + 1 < a.hidden.size() / h; ++g) {
    EXPECT_NE(std::memcmp(a.hidden.data() + g * h, a.hidden.data() + (g + 1) * h, h * sizeof(float)), 0) << g;
  }
}

// The head multiplies consecutive head groups together too, up to kBatchRows rows: with more
// decode positions than that, several batches, each of whose logits must land on its own rows
// (an all-FP32 plan's logits are the reference's to FP32 rounding).
TEST(DecodeBatching, HeadBatchesLandOnTheirRows) {
  const auto m = test::tiny_model();
  const ForwardShape shape{8, 200, 2};  // 201 head groups x 2 sequences: 402 rows, two batches
  ASSERT_GT(shape.positions(), PlanForward::kBatchRows);
  const auto cpu = at(Unit::kCpu, Precision::kFp32);
  const SyntheticWeights w(m, 4);
  const auto o = compare_with_reference(m, test::uniform_plan(m, shape, cpu, cpu), shape, w, 4, 0);
  EXPECT_LT(o.metrics.logits_rel_error, 1e-5);
  EXPECT_EQ(o.metrics.top1_agreement, 1.0);
  EXPECT_EQ(o.metrics.positions, shape.positions());
  // A per-tensor W8A8 head: each group's rows with its own activation scale, in batches alike.
  const auto npu = at(Unit::kNpu, Precision::kW8A8);
  const auto q = compare_with_reference(m, test::uniform_plan(m, shape, npu, cpu), shape, w, 4, 0);
  EXPECT_LT(q.metrics.logits_rel_error, 0.2);
  EXPECT_GT(q.metrics.top1_agreement, 0.7);
}

// Per-step INT8 scales in one GEMM: each block of rows has the bits of multiplying it alone (a
// short last block included), and the blocks' scales differ (rows of different magnitudes).
TEST(DecodeBatching, W8A8RowBlocksAreEachBlockAlone) {
  kernels::Tensor w = kernels::test::random_f32(24, 40, 5);
  kernels::Tensor x = kernels::test::random_f32(8, 24, 6);
  for (std::int64_t c = 0; c < 24; ++c) x.data<float>()[3 * 24 + c] *= 50.0f;  // block 1's scale 50x block 0's
  Linear batched(w, Linear::Orientation::kInOut), alone(w, Linear::Orientation::kInOut);
  const kernels::Tensor y = batched.apply_w8a8_row_blocks(x, 3);
  ASSERT_EQ(y.dim(0), 8);
  ASSERT_EQ(y.dim(1), 40);
  for (std::int64_t r0 = 0; r0 < 8; r0 += 3) {
    const std::int64_t rows = std::min<std::int64_t>(3, 8 - r0);
    kernels::Tensor part = kernels::Tensor::matrix(rows, 24, kernels::ElemType::kF32);
    std::memcpy(part.data<float>().data(), x.data<float>().data() + r0 * 24, static_cast<std::size_t>(rows * 24) * sizeof(float));
    const kernels::Tensor want = alone.apply(part, Precision::kW8A8);
    EXPECT_EQ(std::memcmp(want.data<float>().data(), y.data<float>().data() + r0 * 40, static_cast<std::size_t>(rows * 40) * sizeof(float)), 0)
        << "rows " << r0;
  }
  const kernels::Tensor whole = alone.apply(x, Precision::kW8A8);  // one scale for all: different bits
  EXPECT_NE(std::memcmp(whole.data<float>().data(), y.data<float>().data(), 8 * 40 * sizeof(float)), 0);
  EXPECT_THROW(batched.apply_w8a8_row_blocks(x, 0), std::invalid_argument);
  // Not a float32 matrix: a named error, never rows copied at the wrong element size.
  EXPECT_THROW(batched.apply_w8a8_row_blocks(kernels::Tensor::matrix(8, 24, kernels::ElemType::kF16), 3), std::invalid_argument);
  EXPECT_THROW(batched.apply_w8a8_row_blocks(kernels::Tensor({2, 4, 24}, kernels::ElemType::kF32), 3), std::invalid_argument);
  // Given scales (the head's, measured over the rows its planned op covers): block i with scales[i].
  const std::vector<float> scales{0.02f, 0.5f, 0.03f};
  const kernels::Tensor g = batched.apply_w8a8_row_blocks(x, 3, scales);
  for (std::int64_t r0 = 0, i = 0; r0 < 8; r0 += 3, ++i) {
    const std::int64_t rows = std::min<std::int64_t>(3, 8 - r0);
    kernels::Tensor part = kernels::Tensor::matrix(rows, 24, kernels::ElemType::kF32);
    std::memcpy(part.data<float>().data(), x.data<float>().data() + r0 * 24, static_cast<std::size_t>(rows * 24) * sizeof(float));
    const kernels::Tensor want = alone.apply(part, Precision::kW8A8, scales[static_cast<std::size_t>(i)]);
    EXPECT_EQ(std::memcmp(want.data<float>().data(), g.data<float>().data() + r0 * 40, static_cast<std::size_t>(rows * 40) * sizeof(float)), 0)
        << "rows " << r0;
  }
  EXPECT_THROW(batched.apply_w8a8_row_blocks(x, 3, {0.1f, 0.2f}), std::invalid_argument);  // one scale per block
}

}  // namespace
}  // namespace socsim::functional
