// shadowAttn's importance calibration by ablation (importance_calibration.h) on a tiny model, and
// the online planner's CPU time (the pipeline_plan job on the budget core).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>

#include "sim/functional/synthetic_weights.h"
#include "sim/hw/cpu/cpu_spec.h"
#include "sim/hw/soc_spec.h"
#include "sim/runtime/job_profiler.h"
#include "sim/systems/shadowattn/calibration.h"
#include "sim/systems/shadowattn/importance_calibration.h"
#include "sim/systems/shadowattn/pipeline_planner.h"
#include "tests/unit/functional/edited_layer_weights.h"
#include "tests/unit/functional/functional_test_helpers.h"

namespace socsim::systems::shadowattn {
namespace {

const std::string kRoot = SOCSIM_SOURCE_DIR;

// Synthetic weights with one head's output projection rows zeroed: that head writes nothing.
functional::test::EditedLayerWeights silenced_head(const model::ModelConfig& m, std::uint32_t layer, std::uint64_t head) {
  return {m, 3, layer,
          [cols = m.hidden, hd = m.head_dim, head](functional::LayerWeights& w) {
            auto d = w.o.data<float>();
            std::fill(d.begin() + static_cast<std::ptrdiff_t>(head * hd * cols), d.begin() + static_cast<std::ptrdiff_t>((head + 1) * hd * cols), 0.0f);
          },
          "silenced"};
}

CalibrationOptions small() {
  CalibrationOptions o;
  o.sequences = 2, o.tokens = 12, o.scored = 4;
  return o;
}

TEST(ShadowAttnImportance, EveryLayerPassIsCountedAndSaidBeforeAndAsItRuns) {
  const auto m = functional::test::tiny_model();  // 2 layers x 4 heads
  CalibrationOptions o = small();
  std::vector<std::uint64_t> passes_seen, layers_seen;
  o.on_pass = [&](std::uint64_t layer, std::uint64_t layers, std::uint64_t pass, std::uint64_t passes) {
    EXPECT_EQ(layers, 2u);
    EXPECT_EQ(passes, calibration_layer_passes(2, 4));
    layers_seen.push_back(layer);
    passes_seen.push_back(pass);
  };
  const auto c = calibrate_importance(m, functional::SyntheticWeights(m, 5, {}), 5, o);
  // Layer 0: its 5 ablations and the base; layer 1: the 5 streams so far, its own 5, the base.
  EXPECT_EQ(calibration_layer_passes(2, 4), 17u);
  EXPECT_EQ(c.layer_passes, 17u);
  ASSERT_EQ(passes_seen.size(), 17u);
  for (std::size_t i = 0; i < passes_seen.size(); ++i) EXPECT_EQ(passes_seen[i], i + 1);
  EXPECT_EQ(std::count(layers_seen.begin(), layers_seen.end(), 1u), 6);
  EXPECT_EQ(std::count(layers_seen.begin(), layers_seen.end(), 2u), 11);
  // The host time known before: linear in the passes and sequences, the attention's share
  // quadratic in the tokens (a 16x longer sequence costs more than 16x).
  CalibrationOptions a = o, b = o;
  a.tokens = 1024, b.tokens = 16384;
  const double ta = calibration_host_seconds(m, a), tb = calibration_host_seconds(m, b);
  EXPECT_GT(tb, 16 * ta);
  EXPECT_LT(tb, 256 * ta);
  b.sequences = 2 * a.sequences, b.tokens = a.tokens;
  EXPECT_DOUBLE_EQ(calibration_host_seconds(m, b), 2 * ta);
}

TEST(ShadowAttnImportance, SilentHeadHasNoImportanceOthersDo) {
  const auto m = functional::test::tiny_model();  // 2 layers x 4 heads
  const auto w = silenced_head(m, 1, 2);
  const auto c = calibrate_importance(m, w, 5, small());
  ASSERT_EQ(c.importance.head.size(), 8u);
  ASSERT_EQ(c.importance.layer.size(), 2u);
  EXPECT_EQ(c.layers_calibrated, 2u);
  EXPECT_EQ(c.layer_passes, (4u + 1) * 3 + 2);  // (heads + 1) x N (N + 1) / 2 ablated passes + N unablated
  EXPECT_LT(c.importance.head[1 * 4 + 2], 1e-12);  // zeroing a head that writes nothing changes nothing
  for (std::size_t i = 0; i < 8; ++i) {
    if (i != 6) {
      EXPECT_GT(c.importance.head[i], 1e-6) << i;
    }
  }
  // A layer's attention matters at least as much as its least important head.
  for (std::size_t l = 0; l < 2; ++l) {
    EXPECT_GE(c.importance.layer[l], *std::min_element(c.importance.head.begin() + 4 * l, c.importance.head.begin() + 4 * l + 4));
  }
  EXPECT_GT(c.base_entropy, 0);
  EXPECT_LE(c.base_entropy, std::log(static_cast<double>(m.vocab)) + 1e-9);
}

TEST(ShadowAttnImportance, DeterministicTruncatedAndRatiosNormalized) {
  const auto m = functional::test::tiny_model();
  const functional::SyntheticWeights w(m, 3);
  auto o = small();
  const auto a = calibrate_importance(m, w, 5, o), b = calibrate_importance(m, w, 5, o);
  EXPECT_EQ(a.importance.head, b.importance.head);
  EXPECT_EQ(a.importance.layer, b.importance.layer);
  EXPECT_NE(a.importance.head, calibrate_importance(m, w, 6, o).importance.head);  // other tokens
  // Truncated at one layer: the first layer is measured on the 1-layer model, the second gets the means.
  o.layers = 1;
  const auto t = calibrate_importance(m, w, 5, o);
  EXPECT_EQ(t.layers_calibrated, 1u);
  const double head_mean = std::accumulate(t.importance.head.begin(), t.importance.head.begin() + 4, 0.0) / 4;
  for (std::size_t h = 4; h < 8; ++h) EXPECT_DOUBLE_EQ(t.importance.head[h], head_mean);
  EXPECT_DOUBLE_EQ(t.importance.layer[1], t.importance.layer[0]);
  o.layers = 3;
  EXPECT_THROW(calibrate_importance(m, w, 5, o), std::invalid_argument);
  // Eq. 3 on the calibrated importances: mean r, capped at 1.
  for (double r : {0.2, 0.6}) {
    const auto ratio = head_ratios(a.importance.head, a.importance.layer, m.heads, r, 100.0);
    EXPECT_NEAR(std::accumulate(ratio.begin(), ratio.end(), 0.0), r * 8, 1e-9);
    for (double x : ratio) EXPECT_LE(x, 1.0);
  }
  // The cache: computed once per (model, seed, options).
  EXPECT_EQ(&cached_calibration(m, 5, small()), &cached_calibration(m, 5, small()));
  EXPECT_EQ(cached_calibration(m, 3, small()).importance.head, calibrate_importance(m, w, 3, small()).importance.head);
}

TEST(ShadowAttnPlannerCost, EvaluationsCountedAndChargedPerCycle) {
  // Two single-head groups. Greedy: step 1 tries both groups (a trial and a placement each: 4)
  // then places the chosen one (2); step 2 tries the last (2) and places it (2); the makespan
  // check places both heads (2): 12. In order: its makespan places 2. Johnson's rule (three lanes):
  // two candidate orders, each placing both heads: 4. plan_pipeline runs all three: 18.
  PipelineInput in;
  in.groups = {{0}, {1}};
  in.npu = {1.0, 2.0};
  in.heads = {{1.0, 1.0}, {0.5, 0.5}};
  EXPECT_EQ(plan_greedy(in).evaluations, 12u);
  EXPECT_EQ(plan_in_order(in).evaluations, 2u);
  EXPECT_EQ(plan_johnson(in).evaluations, 4u);
  EXPECT_EQ(plan_pipeline(in).evaluations, 18u);

  // The job: evaluations x 16 scalar ops at one per cycle of the mid core, plus the dispatch.
  auto tree = config::ConfigTree::load_file(kRoot + "/soc_configs/snapdragon-8gen3.yaml");
  const hw::SocSpec soc = hw::parse_soc_spec(tree);
  const auto m = functional::test::tiny_model();
  runtime::JobProfiler profiler(soc, m);
  const auto job = [](std::uint64_t elements, int copies) {
    runtime::Job j;
    j.unit = kernels::Unit::kCpu;
    j.cpu_cluster = "mid";
    model::OpDesc op;
    op.name = "pipeline_plan";
    op.kind = model::OpKind::kPipelinePlan;
    op.elements = elements;
    for (int i = 0; i < copies; ++i) j.ops.push_back({op, model::Phase::kPrefill, 0, 0});
    return j;
  };
  const hw::CpuClusterSpec* mid = nullptr;
  for (const auto& c : soc.cpu.clusters) {
    if (c.name == "mid") mid = &c;
  }
  ASSERT_NE(mid, nullptr);
  const std::uint64_t cycles = 14 * 16;
  const double expect_s = static_cast<double>(cycles) / static_cast<double>(mid->clock_hz);
  // Warm: the job run twice minus once (the first task on an idle cluster pays its wake-up).
  const Tick warm = profiler.duration(job(cycles, 2)) - profiler.duration(job(cycles, 1));
  EXPECT_NEAR(to_seconds(warm - soc.cpu.task_dispatch), expect_s, 2e-9);
  // Scalar: the vector rate does not apply (a vector-rate op would take fp32_flops_per_cycle times less).
  const Tick warm2 = profiler.duration(job(2 * cycles, 2)) - profiler.duration(job(2 * cycles, 1));
  EXPECT_NEAR(to_seconds(warm2 - warm), expect_s, 2e-9);
}

}  // namespace
}  // namespace socsim::systems::shadowattn
