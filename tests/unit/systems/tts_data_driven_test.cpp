// Functional mode's data-driven timing for tts-npu: each sample of the batch stops at its first
// greedy end-of-sequence token (the system's own logits) and leaves the batch, so later decode
// steps run fewer rows; timing mode decodes every sample to --decode.
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>

#include "sim/functional/functional_run.h"
#include "sim/functional/synthetic_weights.h"
#include "sim/runtime/data_driven.h"
#include "sim/runtime/simulate_run.h"
#include "sim/systems/plan_builder.h"
#include "tests/support/configured_system.h"
#include "tests/unit/functional/functional_test_helpers.h"

namespace socsim::systems {
namespace {

constexpr std::uint64_t kBatch = 8, kDecode = 12;

// The tiny model (vocabulary of 100) with `eos` as its end-of-sequence ids.
struct TtsEosRun : test::ConfiguredSystem {
  explicit TtsEosRun(std::vector<std::uint64_t> eos) : ConfiguredSystem("snapdragon-8gen3", {}) {
    req.model = functional::test::tiny_model();
    req.model.eos_token_ids = std::move(eos);
    req.prompt_tokens = 24, req.decode_tokens = kDecode, req.batch = kBatch, req.seed = 5;
    req.mode = runtime::Mode::kFunctional;
    configure("tts-npu");
  }
  functional::FunctionalResult functional() { return functional::run_functional_with_data(req, *system, {}); }
  report::RunReport timed(const runtime::DataDriven* d) {
    runtime::RunRequest r = req;
    if (d) r.data_driven = *d;
    report::TraceRecorder t;
    return runtime::simulate_run(r, *system, t);
  }
};

std::vector<std::uint64_t> ids_below(std::uint64_t n) {
  std::vector<std::uint64_t> v(n);
  std::iota(v.begin(), v.end(), 0);
  return v;
}

// Each sample's length is the position of its first greedy EOS token, read here from the
// system's argmax per position (head group g, sequence b at g * B + b).
TEST(TtsDataDriven, EachSampleStopsAtItsFirstGreedyEos) {
  TtsEosRun run(ids_below(30));  // 30% of the vocabulary ends a sample
  const auto result = run.functional();
  const auto& steps = result.data.decode_steps;
  ASSERT_EQ(steps.size(), kBatch);
  const functional::SyntheticWeights w(run.req.model, run.req.seed);
  const auto o = functional::compare_with_reference(run.req.model, run.plan(), {run.req.prompt_tokens, kDecode, kBatch}, w, run.req.seed, 0);
  ASSERT_EQ(o.system_top1.size(), (kDecode + 1) * kBatch);
  std::size_t early = 0;
  for (std::uint64_t b = 0; b < kBatch; ++b) {
    std::uint64_t want = kDecode;
    for (std::uint64_t g = 0; g < kDecode; ++g) {
      if (o.system_top1[g * kBatch + b] < 30) {
        want = g;
        break;
      }
    }
    EXPECT_EQ(steps[b], want) << "sequence " << b;
    early += want < kDecode ? 1 : 0;
  }
  EXPECT_GT(early, 0u);  // else the test would not test (deterministic: seed 5)
  // Pinned: a change of the numerics or of which token stops which step shows here.
  EXPECT_EQ(steps, (std::vector<std::uint64_t>{2, 12, 0, 2, 4, 0, 0, 3}));
  const auto& s = result.data.summary.at("tts.decode_steps");
  EXPECT_EQ(s.at("per_sequence").get<std::vector<std::uint64_t>>(), steps);
  EXPECT_EQ(s.at("stopped_early").get<std::size_t>(), early);
  EXPECT_EQ(result.data.summary.at("quantities"), "TTS sample lengths");
}

// With no EOS id the model never stops a sample: no quantity; with every id one, every sample
// stops on the prefill's token and the run ends at its first token.
TEST(TtsDataDriven, NoEosIdsNoQuantityAndAllIdsStopEverySampleAtOnce) {
  EXPECT_TRUE(TtsEosRun({}).functional().data.empty());
  TtsEosRun all(ids_below(100));
  const auto d = all.functional().data;
  EXPECT_EQ(d.decode_steps, std::vector<std::uint64_t>(kBatch, 0));
  // A long list of ids is reported by its count.
  EXPECT_EQ(d.summary.at("tts.decode_steps").at("eos_token_ids").at("count"), 100u);
  const auto r = all.timed(&d);
  EXPECT_EQ(r.decode_tokens, 0u);
  EXPECT_EQ(r.extra.at("decode_rows"), 0u);  // measured: none sampled (not absent)
  EXPECT_DOUBLE_EQ(*r.total_ms, *r.ttft_ms);
  EXPECT_LT(*r.total_ms, *all.timed(nullptr).total_ms);
}

// The timed run decodes until the longest sample stops, each step over the samples still going:
// full lengths time exactly as timing mode; shorter ones only less, the more so the shorter; the
// tokens per second count the rows sampled. Timing mode ignores the EOS ids.
TEST(TtsDataDriven, TheTimedRunDecodesOnlyTheSamplesStillGoing) {
  TtsEosRun run(ids_below(30));
  const auto plain = run.timed(nullptr);

  runtime::DataDriven full;
  full.decode_steps.assign(kBatch, kDecode);
  const auto same = run.timed(&full);
  EXPECT_EQ(*same.total_ms, *plain.total_ms);
  EXPECT_EQ(same.extra.at("decode_rows"), kBatch * kDecode);

  runtime::DataDriven some;
  some.decode_steps = {12, 3, 0, 12, 5, 12, 12, 1};  // 57 rows over 12 steps
  const auto shorter = run.timed(&some);
  EXPECT_EQ(shorter.decode_tokens, kDecode);
  EXPECT_EQ(shorter.extra.at("decode_rows"), 57u);
  EXPECT_LT(*shorter.total_ms, *plain.total_ms);
  EXPECT_DOUBLE_EQ(*shorter.ttft_ms, *plain.ttft_ms);  // the prefill runs the whole batch either way
  const double decode_s = (*shorter.total_ms - *shorter.ttft_ms) / 1e3;
  EXPECT_NEAR(*shorter.decode_tokens_per_s, 57.0 / decode_s, 1e-6 * *shorter.decode_tokens_per_s);

  // A workload: the measured (first) request follows the data, the next decodes in full.
  TtsEosRun two(ids_below(30));
  two.req.workload = {{24, kDecode, kBatch}, {24, kDecode, kBatch}};
  const auto w = two.timed(&some);
  const auto& per = w.extra.at("workload").at("per_request");
  EXPECT_EQ(per.at(0).at("decode_rows"), 57u);
  EXPECT_FALSE(per.at(1).contains("decode_rows"));
  EXPECT_EQ(w.extra.at("decode_rows"), 57u + kBatch * kDecode);

  runtime::DataDriven fewer = some;
  fewer.decode_steps = {6, 3, 0, 6, 5, 6, 6, 1};  // the longest stops at 6: six steps
  const auto shortest = run.timed(&fewer);
  EXPECT_EQ(shortest.decode_tokens, 6u);
  EXPECT_LT(*shortest.total_ms, *shorter.total_ms);
}

// Which token stops which step, on hand-made greedy tokens (2 sequences, 3 decode steps: head
// groups 0..3, group g of sequence b at g * 2 + b): an EOS at group g leaves g steps; at the last
// group (the last step's output) it stops nothing.
TEST(TtsDataDriven, AnEosAtHeadGroupGLeavesGSteps) {
  const functional::ForwardShape shape{16, 3, 2};
  constexpr std::uint64_t E = 9, x = 50;
  EXPECT_EQ(functional::sample_decode_steps({x, x, E, x, x, x, x, E}, shape, {E}), (std::vector<std::uint64_t>{1, 3}));
  EXPECT_EQ(functional::sample_decode_steps({E, x, x, E, E, E, x, x}, shape, {4, E}), (std::vector<std::uint64_t>{0, 1}));
  EXPECT_EQ(functional::sample_decode_steps({x, x, x, x, x, x, E, E}, shape, {E}), (std::vector<std::uint64_t>{3, 3}));
  EXPECT_THROW(functional::sample_decode_steps({x, x}, shape, {E}), std::logic_error);
}

// --functional-layers N < L: the logits are not the model's, so the samples keep --decode and
// the accuracy object says why.
TEST(TtsDataDriven, ATruncatedForwardStopsNoSample) {
  TtsEosRun run(ids_below(100));
  functional::FunctionalOptions o;
  o.layers = 1;
  const auto r = functional::run_functional_with_data(run.req, *run.system, o);
  EXPECT_TRUE(r.data.empty());
  EXPECT_NE(r.accuracy.at("sample_lengths").get<std::string>().find("1 of 2 layers are not the model's"), std::string::npos);
}

TEST(TtsDataDriven, ActiveSamplesPerStepAndTheShrinkingBatchesChecks) {
  runtime::DataDriven d;
  d.decode_steps = {3, 0, 1, 3};
  EXPECT_EQ(d.active_per_step(), (std::vector<std::uint64_t>{3, 2, 2}));
  d.decode_steps = {0, 0};
  EXPECT_TRUE(d.active_per_step().empty());

  const auto m = functional::test::tiny_model();
  SequentialPlanBuilder b([](const model::GraphOp&) { return Placement{kernels::Unit::kCpu, runtime::Precision::kFp32, 1}; },
                          [](const model::GraphOp&) { return std::string(); });
  const auto prefill = model::prefill_graph(m, {8, 0, 4, false, false}, false);
  for (const std::vector<std::uint64_t>& bad : {std::vector<std::uint64_t>{2, 3}, {4, 0}, {5}, {4, 4, 4}}) {  // (3 steps of 2)
    runtime::Plan plan;
    EXPECT_THROW(build_prefill_decode(plan, b, m, prefill, {8, 2, 4}, bad), std::logic_error);
  }
  runtime::Plan plan;
  build_prefill_decode(plan, b, m, prefill, {8, 3, 4}, {4, 2, 1});
  ASSERT_EQ(plan.decode_step_end.size(), 3u);
  // Each step's sampling reads the logits of the samples still going.
  const std::vector<std::uint64_t> want = {4, 2, 1};
  for (std::size_t s = 0; s < 3; ++s) EXPECT_EQ(plan.jobs[plan.decode_step_end[s]].ops.back().op.elements, want[s] * m.vocab);
}

}  // namespace
}  // namespace socsim::systems
