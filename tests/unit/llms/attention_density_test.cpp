// Functional-mode densities (serve --mode functional): accumulated call by call they equal the
// paper's formula over a full prefill; a chunk that draws the attention gets the top density; a
// service run on them differs from the synthetic one, measures accuracy per call, and is
// deterministic.
#include "sim/systems/llms/attention_density.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "sim/systems/llms/compression_accuracy.h"
#include "sim/systems/llms/service_simulation.h"

namespace socsim::systems::llms {
namespace {

using kernels::ElemType;
using kernels::Tensor;

// One layer, one head of 8: every query points along e3 and only token 1 (the "magnet") has a
// key there. e3 pairs with e7 in rotate-half RoPE at the slowest frequency (1e4^-0.75 rad per
// position), so the alignment survives 64 positions: score ~ 2.83 x 2^2 = 11.3 vs 0.
TinyDecoder magnet_decoder() {
  TinyDecoder m;
  m.vocab = 2;
  m.hidden = 8;
  m.heads = 1;
  m.head_dim = 8;
  m.ffn = 8;
  m.layers = 1;
  m.embedding = Tensor::matrix(2, 8, ElemType::kF32);
  m.embedding.data<float>()[0 * 8 + 0] = 1.0f;  // ordinary token: e0
  m.embedding.data<float>()[1 * 8 + 3] = 1.0f;  // magnet: e3
  TinyDecoder::Layer w;
  w.attn_norm.assign(8, 1.0f);
  w.mlp_norm.assign(8, 1.0f);
  for (Tensor* t : {&w.wq, &w.wk, &w.wv, &w.wo}) *t = Tensor::matrix(8, 8, ElemType::kF32);
  w.w1 = Tensor::matrix(8, 8, ElemType::kF32);
  w.w2 = Tensor::matrix(8, 8, ElemType::kF32);
  w.wq.data<float>()[0 * 8 + 3] = 2.0f;
  w.wq.data<float>()[3 * 8 + 3] = 2.0f;
  w.wk.data<float>()[3 * 8 + 3] = 2.0f;
  for (std::int64_t i = 0; i < 8; ++i) w.wv.data<float>()[static_cast<std::size_t>(i * 8 + i)] = 1.0f;
  m.layer.push_back(std::move(w));
  return m;
}

std::size_t densest(const std::vector<double>& d) { return static_cast<std::size_t>(std::max_element(d.begin(), d.end()) - d.begin()); }

TEST(AttentionDensity, TheChunkThatDrawsTheAttentionIsDensest) {
  const auto m = magnet_decoder();
  std::vector<int> ids(64, 0);
  ids[20] = 1;  // chunk 1 of 4
  ContextAttention with(m, 16), without(m, 16);
  with.extend({ids.begin(), ids.begin() + 30});  // two calls
  with.extend({ids.begin() + 30, ids.end()});
  without.extend(std::vector<int>(64, 0));
  const auto d = with.chunk_densities(), flat = without.chunk_densities();
  ASSERT_EQ(d.size(), 4u);
  EXPECT_EQ(densest(d), 1u);
  // Without the magnet, attention is uniform per row and the earliest tokens (seen by rows that
  // see few others) are densest: chunk 0.
  EXPECT_EQ(densest(flat), 0u);
  EXPECT_GT(d[1], 2 * flat[1]);
}

TEST(AttentionDensity, CallByCallEqualsTheFormulaOverAFullPrefill) {
  const auto m = density_stand_in(4);
  std::vector<int> ids;
  for (int i = 0; i < 150; ++i) ids.push_back((i * 37 + 11) % static_cast<int>(m.vocab));
  ContextAttention ctx(m, 16);
  ctx.extend({ids.begin(), ids.begin() + 40});
  ctx.extend({ids.begin() + 40, ids.begin() + 141});  // two blocks of rows
  ctx.extend({ids.begin() + 141, ids.end()});
  const auto full = compression_accuracy(m, ids, 16, 0.5, 16).chunk_density;
  const auto inc = ctx.chunk_densities();
  ASSERT_EQ(inc.size(), full.size());
  for (std::size_t i = 0; i < inc.size(); ++i) EXPECT_NEAR(inc[i], full[i], 1e-5 * full[i]) << i;
  // Nothing compressed, nothing lost; a compressed cache costs accuracy.
  EXPECT_EQ(ctx.compressed_error(std::vector<int>(inc.size(), 0), 16), 0.0);
  EXPECT_GT(ctx.compressed_error(std::vector<int>(inc.size(), 2), 16), 0.0);
  // The window slides: the oldest chunk leaves, the rest keep their densities until new rows come.
  ctx.drop_front(16);
  EXPECT_EQ(ctx.tokens(), 134u);
  const auto after = ctx.chunk_densities();
  ASSERT_EQ(after.size(), inc.size() - 1);
  EXPECT_DOUBLE_EQ(after[0], inc[1]);
  ctx.extend({1, 2, 3});  // 137 tokens: 9 chunks, every one seen by a row
  const auto grown = ctx.chunk_densities();
  ASSERT_EQ(grown.size(), 9u);
  for (double x : grown) EXPECT_GT(x, 0.0);
}

ServiceConfig small_service(DensitySource source) {
  ServiceConfig cfg;
  cfg.policy = Policy::kLlms;
  cfg.contexts = 3;
  cfg.memory_budget = 12 * 1024;
  cfg.model.id = "tiny";
  cfg.model.layers = 2;
  cfg.model.kv_heads = 1;
  cfg.model.head_dim = 8;
  cfg.model.max_context = 256;
  cfg.seed = 7;
  cfg.check_invariants = true;
  cfg.density_source = source;
  return cfg;
}

TEST(AttentionDensity, FunctionalServiceDiffersFromSyntheticMeasuresAccuracyAndRepeats) {
  ServiceCosts costs;
  costs.recompute_s = RecomputeCost::linear(0.010, 0.002 / 16);  // 2 ms a 16-token chunk
  costs.read = {0.001, 1e-6};
  costs.write = {0.002, 2e-6};
  TraceSpec t;
  t.contexts = 3;
  t.hours = 3;
  t.seed = 5;
  const auto calls = generate_trace(t, {{"a", 20, 200}, {"b", 5, 50}});
  ASSERT_GT(calls.size(), 10u);
  const auto timing = simulate_service(small_service(DensitySource::kSyntheticLognormal), costs, calls);
  const auto f1 = simulate_service(small_service(DensitySource::kAttentionScores), costs, calls);
  const auto f2 = simulate_service(small_service(DensitySource::kAttentionScores), costs, calls);
  EXPECT_TRUE(timing.compressed_rel_error.empty());
  ASSERT_EQ(f1.compressed_rel_error.size(), calls.size());
  for (double e : f1.compressed_rel_error) {
    EXPECT_GE(e, 0.0);
    EXPECT_LT(e, 1.0);
  }
  EXPECT_EQ(f1.compressed_rel_error, f2.compressed_rel_error);
  EXPECT_EQ(f1.switch_s, f2.switch_s);
  EXPECT_EQ(f1.bytes_written, f2.bytes_written);
  // Other densities, other requantizations: the storage traffic differs from the synthetic run.
  EXPECT_NE(f1.bytes_written, timing.bytes_written);
}

}  // namespace
}  // namespace socsim::systems::llms
