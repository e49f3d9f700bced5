// shadowAttn's offline scale calibration (scale_calibration.h) and the bucket grid functional mode
// centres on it: the calibrated mean follows the Q/K projections exactly, and a grid centred far
// from it costs recall (the static graphs' scales saturate or waste the INT8 range).
#include <gtest/gtest.h>

#include <numeric>

#include "sim/functional/functional_run.h"
#include "sim/functional/plan_forward.h"
#include "sim/functional/synthetic_weights.h"
#include "sim/systems/shadowattn/scale_calibration.h"
#include "tests/support/configured_system.h"
#include "tests/unit/functional/functional_test_helpers.h"

namespace socsim::systems::shadowattn {
namespace {

// The synthetic weights with q_proj and k_proj multiplied by powers of two (exact in float, so
// every Q and K element, and every absmax, scales exactly).
class ScaledQk : public functional::WeightSource {
 public:
  ScaledQk(const functional::WeightSource& base, float q, float k) : base_(base), q_(q), k_(k) {}
  std::string describe() const override { return base_.describe() + " scaled"; }
  functional::LayerWeights layer(std::uint32_t i) const override {
    functional::LayerWeights w = base_.layer(i);
    for (auto& x : w.q.data<float>()) x *= q_;
    for (auto& x : w.k.data<float>()) x *= k_;
    return w;
  }
  void embedding_rows(std::span<const std::int32_t> ids, float* out) const override { base_.embedding_rows(ids, out); }
  functional::NormWeights final_norm() const override { return base_.final_norm(); }
  kernels::Tensor lm_head_rows(std::uint64_t first, std::uint64_t count) const override { return base_.lm_head_rows(first, count); }

 private:
  const functional::WeightSource& base_;
  float q_, k_;
};

model::ModelConfig tiny_without_bias() {
  model::ModelConfig m = functional::test::tiny_model();
  m.attention_bias = false;  // a bias would not scale with the weights
  return m;
}

TEST(ShadowAttnScaleCalibration, MeanFollowsTheProjectionsExactly) {
  const auto m = tiny_without_bias();
  const functional::SyntheticWeights w(m, 3);
  const ScaleCalibrationOptions o{2, 2, 16, 0};
  const auto base = calibrate_scales(m, w, 7, o);
  EXPECT_EQ(base.samples, 2u * 2u * m.layers * m.heads);
  EXPECT_GT(base.mean.q, 0);
  EXPECT_GT(base.mean.k, 0);
  // Layer 0's Q and K scale with the projections; later layers see the changed attention, so
  // calibrate layer 0 only for the exact check.
  const ScaleCalibrationOptions first{2, 2, 16, 1};
  const auto one = calibrate_scales(m, w, 7, first);
  const ScaledQk scaled(w, 2.0f, 0.25f);
  const auto s = calibrate_scales(m, scaled, 7, first);
  EXPECT_DOUBLE_EQ(s.mean.q, 2.0 * one.mean.q);
  EXPECT_DOUBLE_EQ(s.mean.k, 0.25 * one.mean.k);
  EXPECT_NEAR(s.log_sd_q, one.log_sd_q, 1e-12);
  EXPECT_NEAR(s.log_sd_k, one.log_sd_k, 1e-12);
  // Calibration data of their own: another token draw gives another (close) mean.
  const auto other = calibrate_scales(m, w, 8, o);
  EXPECT_NE(other.mean.q, base.mean.q);
  EXPECT_NEAR(other.mean.q / base.mean.q, 1.0, 0.5);
  EXPECT_THROW(calibrate_scales(m, w, 7, {2, 2, 16, m.layers + 1}), std::invalid_argument);
  EXPECT_THROW(calibrate_scales(m, w, 7, {0, 2, 16, 0}), std::invalid_argument);
  EXPECT_THROW(calibrate_scales(m, w, 7, {2, 0, 16, 0}), std::invalid_argument);
}

// llm.npu chunks of 32 rows: three chunks of the 96-token prompt.
std::vector<std::string> with_chunk(std::vector<std::string> sets) {
  sets.push_back("llm_npu.chunk=32");
  return sets;
}

struct TinyShadow : test::ConfiguredSystem {
  explicit TinyShadow(std::vector<std::string> sets = {}) : ConfiguredSystem("snapdragon-8gen3", with_chunk(std::move(sets))) {
    req.model = functional::test::tiny_model();
    req.prompt_tokens = 96, req.decode_tokens = 1;
    configure("shadowattn");
  }
  // The plan functional mode computed: llm.npu's kept layers from the importance it measured.
  runtime::Plan measured_plan(const runtime::DataDriven& data) {
    return system->plan_with(&data, req.soc, req.model, {req.prompt_tokens, req.decode_tokens, req.batch});
  }
};

// Recall of shadowattn's estimation with the grid centred at `centre` (none: each layer's own mean, the oracle).
double recall_with_centre(const runtime::Plan& plan, const model::ModelConfig& m, const functional::WeightSource& w,
                          std::optional<ScalePair> centre, std::uint64_t seed) {
  const functional::ForwardShape shape{96, 1, 1};
  const auto ids = functional::draw_tokens(shape, m.vocab, seed);
  functional::PlanForward f(m, plan, shape, ids, w);
  functional::calibrate_offline_scales(f, m, plan, w, seed, 0);  // as run_functional does for the W8A8 jobs
  if (centre) f.set_bucket_centre(*centre);
  for (std::uint32_t l = 0; l < m.layers; ++l) f.run_layer(l, w.layer(l));
  return f.sparse_stats().recall_hits / f.sparse_stats().recall_total;
}

TEST(ShadowAttnScaleCalibration, FunctionalGridIsCentredOnTheCalibration) {
  TinyShadow r;
  functional::FunctionalOptions opt;
  const auto result = functional::run_functional_with_data(r.req, *r.system, opt);
  const auto& acc = result.accuracy;
  ASSERT_TRUE(acc.contains("scale_calibration"));
  ASSERT_EQ(result.data.layer_importance.size(), r.req.model.layers);
  const auto& c = acc["scale_calibration"];
  EXPECT_EQ(c["chunk"], 32);  // the plan's estimation chunk
  EXPECT_EQ(c["samples"].get<std::uint64_t>(), 2u * 2u * r.req.model.layers * r.req.model.heads);
  // Every (chunk, layer, head) estimation went to some bucket: 3 chunks x 2 layers x 4 heads.
  const auto use = acc["bucket_use"].get<std::vector<std::uint64_t>>();
  EXPECT_EQ(use.size(), 9u);
  EXPECT_EQ(std::accumulate(use.begin(), use.end(), std::uint64_t{0}), 24u);
  EXPECT_GT(acc["centre_bucket_share"].get<double>(), 0.0);

  // The same estimation with the grid centred 64x too high in Q and K: the INT8 codes of every
  // head collapse to a few levels and the kept positions drift from the FP32 top-k.
  const functional::SyntheticWeights w(r.req.model, r.req.seed);
  const auto plan = r.measured_plan(result.data);
  const ScalePair calibrated{c["lam_q"].get<double>(), c["lam_k"].get<double>()};
  const double good = recall_with_centre(plan, r.req.model, w, calibrated, r.req.seed);
  const double off = recall_with_centre(plan, r.req.model, w, ScalePair{calibrated.q * 64, calibrated.k * 64}, r.req.seed);
  EXPECT_GT(good, 0.8);
  EXPECT_LT(off, good - 0.05);
  // The oracle centre (each layer's own mean) needs no calibration; its recall is what the
  // recall_with_centre helper gives without a centre.
  TinyShadow oracle({"shadowattn.scale_centre=oracle"});
  const auto oracle_result = functional::run_functional_with_data(oracle.req, *oracle.system, opt);
  const auto& acc_oracle = oracle_result.accuracy;
  EXPECT_FALSE(acc_oracle.contains("scale_calibration"));
  EXPECT_EQ(acc_oracle["scale_centre"].get<std::string>().rfind("oracle", 0), 0u);
  EXPECT_DOUBLE_EQ(acc_oracle["topk_recall"].get<double>(),
                   recall_with_centre(oracle.measured_plan(oracle_result.data), r.req.model, w, std::nullopt, r.req.seed));
  EXPECT_DOUBLE_EQ(acc["topk_recall"].get<double>(), good);
  // Baselines have no grid.
  test::ConfiguredSystem base("snapdragon-8gen3", {"llm_npu.chunk=32"});
  base.req = r.req;
  base.configure("cg-sparse");
  EXPECT_FALSE(functional::run_functional(base.req, *base.system, opt).contains("scale_calibration"));
}

}  // namespace
}  // namespace socsim::systems::shadowattn

namespace socsim::systems::shadowattn {
namespace {

std::size_t estimation_launches(const runtime::Plan& plan) {
  std::size_t n = 0;
  for (const auto& j : plan.jobs) n += j.name.find(".estimate.g") != std::string::npos ? 1 : 0;
  return n;
}

// Functional mode measures each head's bucket on the real Q and K; the timed plan fuses the
// heads that share one (at most max_fuse per launch), so the data decides the launches.
TEST(ShadowAttnDataDriven, MeasuredBucketsDecideTheFusedLaunches) {
  TinyShadow r;
  const auto f = functional::run_functional_with_data(r.req, *r.system, {});
  // One bucket per (chunk, layer, head): 3 chunks x 2 layers x 4 heads.
  EXPECT_EQ(f.data.head_buckets.size(), 24u);
  EXPECT_EQ(f.accuracy["bucket_use"].get<std::vector<std::uint64_t>>().size(), 9u);
  EXPECT_TRUE(f.data.summary.contains("shadowattn.head_buckets"));
  // All heads in one bucket: one launch of 4 fused heads per (chunk, layer); each in its own: 4.
  runtime::DataDriven same = f.data, apart = f.data;
  for (auto& [key, b] : same.head_buckets) b = 0;
  for (auto& [key, b] : apart.head_buckets) b = std::get<2>(key);
  r.system->use_data(&same);
  const auto fused = r.plan();
  r.system->use_data(&apart);
  const auto separate = r.plan();
  r.system->use_data(nullptr);
  EXPECT_EQ(estimation_launches(fused), 3u * 2u);
  EXPECT_EQ(estimation_launches(separate), 3u * 2u * 4u);
  // The timed run follows the data; timing mode (no data) plans from drawn scales, unchanged.
  auto timed = [&](const runtime::DataDriven& d) {
    runtime::RunRequest q = r.req;
    q.data_driven = d;
    report::TraceRecorder t;
    return runtime::simulate_run(q, *r.system, t);
  };
  const auto a = timed(same), b = timed(apart), plain = timed({}), plain_again = timed({});
  EXPECT_LT(*a.prefill_ms, *b.prefill_ms);  // fewer graph launches
  EXPECT_EQ(plain.prefill_ms, plain_again.prefill_ms);
}

}  // namespace
}  // namespace socsim::systems::shadowattn
