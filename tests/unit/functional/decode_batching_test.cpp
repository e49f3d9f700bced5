// PlanForward runs the matmuls of consecutive decode steps of a layer together when every
// matmul's precision computes each row on its own (FP32, FP16, W4A16, W8A8 with a profiled scale)
// or can quantize each step's rows with their own scale (per-tensor W8A8, min-max). The numbers
// must be those of one step at a time to the bit, and the batching must happen only where allowed.
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "functional_test_helpers.h"
#include "sim/functional/functional_run.h"
#include "sim/functional/head_batches.h"
#include "sim/functional/linear.h"
#include "kernels/gemm/w4a16_fused.h"
#include "kernels/quant/int8_quant.h"
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

// A plan whose placement changes between decode steps and between q, k and v: a batch ends where
// any matmul's placement changes, its attention goes step by step with each step's own kernel, and
// the numbers are one step at a time's to the bit.
TEST(DecodeBatching, PlacementsThatChangeBetweenStepsAndProjections) {
  const auto m = test::tiny_model();
  const ForwardShape shape{10, 12, 2};
  const auto npu4 = at(Unit::kNpu, Precision::kW4A16), gpu16 = at(Unit::kGpu, Precision::kFp16), cpu32 = at(Unit::kCpu, Precision::kFp32),
             npu8 = at(Unit::kNpu, Precision::kW8A8);
  // Decode matmuls on the NPU in W4A16 but the MLP's on the GPU in FP16 at steps 4-5 and o_proj in
  // per-tensor W8A8 at step 6 (later matmuls than q_proj change alone); k_proj always FP16 on the
  // GPU and v_proj FP32 on the CPU. Attention alternates between the CPU (FP32) and the NPU (FP16
  // flash) every step, which must not stop the matmuls' batching.
  const auto place = [&](const model::GraphOp& g) -> systems::Placement {
    if (g.op.kind != model::OpKind::kMatMul) {
      return g.phase == model::Phase::kDecode && g.step % 2 == 1 ? at(Unit::kNpu, Precision::kFp16) : cpu32;
    }
    if (g.op.name == "k_proj") return gpu16;
    if (g.op.name == "v_proj") return cpu32;
    if (g.phase != model::Phase::kDecode) return npu4;
    const bool mlp = g.op.name == "gate_proj" || g.op.name == "up_proj" || g.op.name == "down_proj";
    if (mlp && (g.step == 4 || g.step == 5)) return gpu16;
    return g.op.name == "o_proj" && g.step == 6 ? npu8 : npu4;
  };
  runtime::Plan plan;
  systems::SequentialPlanBuilder b(place, [](const model::GraphOp&) { return std::string(); });
  const auto prefill = model::prefill_graph(m, {shape.prompt, 4, shape.sequences, false, false}, false);
  systems::build_prefill_decode(plan, b, m, prefill, {shape.prompt, shape.decode, shape.sequences});
  const Forward alone = forward(m, plan, shape, 1);
  const Forward batched = forward(m, plan, shape, PlanForward::kBatchRows);
  const std::uint64_t L = m.layers;
  EXPECT_EQ(alone.batches, L * (3 + 12));
  EXPECT_EQ(batched.batches, L * (3 + 4));  // steps 0-3, 4-5, 6, 7-11
  EXPECT_TRUE(same_bits(alone.hidden, batched.hidden));
  // The placements matter: the same plan with every decode matmul in W4A16 gives other numbers.
  runtime::Plan uniform;
  systems::SequentialPlanBuilder ub(
      [&](const model::GraphOp& g) { return g.op.kind == model::OpKind::kMatMul && g.phase == model::Phase::kDecode ? npu4 : place(g); },
      [](const model::GraphOp&) { return std::string(); });
  systems::build_prefill_decode(uniform, ub, m, prefill, {shape.prompt, shape.decode, shape.sequences});
  EXPECT_FALSE(same_bits(alone.hidden, forward(m, uniform, shape, 1).hidden));
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

// The head's batches: consecutive groups of one precision share a multiplication, a change of
// precision starts a new batch, and every group's logits are its own alone's to the bit. Head
// placements change between decode steps here (FP32, W4A16, per-tensor W8A8 with each group's own
// scale, FP16), so the batches are runs of groups, not the whole decode.
TEST(DecodeBatching, HeadBatchesAreEachGroupAlone) {
  const auto m = test::tiny_model();
  const ForwardShape shape{10, 12, 2};
  const auto cpu32 = at(Unit::kCpu, Precision::kFp32);
  const auto head_at = [&](std::uint64_t step) {
    return step < 3 ? cpu32 : step < 7 ? at(Unit::kNpu, Precision::kW4A16) : step < 10 ? at(Unit::kNpu, Precision::kW8A8) : at(Unit::kGpu, Precision::kFp16);
  };
  runtime::Plan plan;
  systems::SequentialPlanBuilder b(
      [&](const model::GraphOp& g) { return g.op.name == "lm_head" && g.phase == model::Phase::kDecode ? head_at(g.step) : cpu32; },
      [](const model::GraphOp&) { return std::string(); });
  systems::build_prefill_decode(plan, b, m, model::prefill_graph(m, {shape.prompt, 0, shape.sequences, false, false}, false),
                                {shape.prompt, shape.decode, shape.sequences});
  const SyntheticWeights w(m, 3);
  PlanForward f(m, plan, shape, draw_tokens(shape, m.vocab, 3), w);
  for (std::uint32_t l = 0; l < m.layers; ++l) f.run_layer(l, w.layer(l));
  const std::vector<HeadGroup> groups = f.head_groups(w.final_norm());
  ASSERT_EQ(groups.size(), 1 + shape.decode);  // the prompt's last position, then every decode step's
  const kernels::Tensor lm = w.lm_head_rows(0, m.vocab);
  Linear head(lm, Linear::Orientation::kOutIn, kernels::max_abs(lm.data<float>()) / 127.0f);  // the whole head's INT8 scale
  const HeadBatches batched(groups, shape.sequences, m.hidden), alone(groups, shape.sequences, m.hidden, shape.sequences);
  // The prompt's group and steps 0-2 in FP32, 3-6 W4A16, 7-9 W8A8, 10-11 FP16.
  EXPECT_EQ(batched.batches(), 4u);
  EXPECT_EQ(alone.batches(), groups.size());
  const kernels::Tensor a = alone.logits(head, m.vocab), bt = batched.logits(head, m.vocab);
  ASSERT_EQ(a.numel(), groups.size() * shape.sequences * m.vocab);
  EXPECT_EQ(std::memcmp(a.data<float>().data(), bt.data<float>().data(), a.numel() * sizeof(float)), 0);
  // A batch never spans precisions or more rows than it may hold.
  const HeadBatches narrow(groups, shape.sequences, m.hidden, 3 * shape.sequences);
  EXPECT_EQ(narrow.batches(), 2u + 2u + 1u + 1u);  // FP32 4 groups: 3 + 1; W4A16 4: 3 + 1; W8A8 3; FP16 2
  const kernels::Tensor n = narrow.logits(head, m.vocab);
  EXPECT_EQ(std::memcmp(a.data<float>().data(), n.data<float>().data(), a.numel() * sizeof(float)), 0);
  // Groups wider than a batch may hold are each a batch of their own (a --batch past 256 ended in
  // an internal error), with the same bits.
  const HeadBatches wide(groups, shape.sequences, m.hidden, 1);
  EXPECT_EQ(wide.batches(), groups.size());
  const kernels::Tensor wl = wide.logits(head, m.vocab);
  EXPECT_EQ(std::memcmp(a.data<float>().data(), wl.data<float>().data(), a.numel() * sizeof(float)), 0);
  EXPECT_THROW(HeadBatches(groups, 0, m.hidden), std::invalid_argument);
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
