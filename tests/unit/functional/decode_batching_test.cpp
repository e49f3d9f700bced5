// PlanForward runs the matmuls of consecutive decode steps of a layer together when every
// matmul's precision computes each row on its own (FP32, FP16, W4A16). The numbers must be those
// of one step at a time to the bit, and the batching must happen only where it is allowed.
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "functional_test_helpers.h"
#include "sim/functional/functional_run.h"
#include "sim/functional/plan_forward.h"
#include "sim/functional/synthetic_weights.h"

namespace socsim::functional {
namespace {

using kernels::Unit;
using runtime::Precision;
using test::at;

struct Forward {
  std::vector<float> hidden;  // every head group's final-normed rows, in order
  std::uint64_t batches = 0;
};

Forward forward(const model::ModelConfig& m, const runtime::Plan& plan, const ForwardShape& s, std::uint64_t batch_rows) {
  const SyntheticWeights w(m, 3);
  PlanForward f(m, plan, s, draw_tokens(s, m.vocab, 3), w);
  f.set_decode_batch_rows(batch_rows);
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
};

std::vector<Case> cases() {
  return {{"W4A16 on the NPU", test::tiny_model(), at(Unit::kNpu, Precision::kW4A16), true},
          {"FP16 on the GPU", test::tiny_model(), at(Unit::kGpu, Precision::kFp16), true},
          {"FP32 on the CPU, plain MLP", test::tiny_plain_model(), at(Unit::kCpu, Precision::kFp32), true},
          {"per-tensor W8A8 on the NPU", test::tiny_model(), at(Unit::kNpu, Precision::kW8A8), false},
          {"per-group INT8 on the NPU", test::tiny_model(), at(Unit::kNpu, Precision::kW8A8Group), false}};
}

TEST(DecodeBatching, SameBitsAsOneStepAtATime) {
  const ForwardShape shape{10, 7, 2};  // prefill in chunks of 4: 3 chunks, then 7 decode steps
  for (const Case& c : cases()) {
    const auto plan = test::uniform_plan(c.model, shape, c.matmuls, at(Unit::kCpu, Precision::kFp32), 4);
    const Forward alone = forward(c.model, plan, shape, 1);
    const Forward batched = forward(c.model, plan, shape, PlanForward::kBatchRows);
    const Forward fours = forward(c.model, plan, shape, 4);  // 2 sequences: 2 steps per batch
    const std::uint64_t L = c.model.layers;
    EXPECT_EQ(alone.batches, L * (3 + 7)) << c.what;
    EXPECT_EQ(batched.batches, c.batches ? L * (3 + 1) : L * (3 + 7)) << c.what;
    EXPECT_EQ(fours.batches, c.batches ? L * (3 + 4) : L * (3 + 7)) << c.what;
    EXPECT_EQ(alone.hidden.size(), (1 + 7) * 2 * c.model.hidden) << c.what;
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
}

}  // namespace
}  // namespace socsim::functional
