// Functional mode's data-driven timing for llm.npu: outlier channels per (chunk, layer, group)
// counted on the real activations against offline scales calibrated on data of their own; the
// shadow jobs of the timed plan follow them.
#include <algorithm>
#include <set>

#include <gtest/gtest.h>

#include "sim/functional/functional_run.h"
#include "sim/functional/synthetic_weights.h"
#include "sim/functional/tensor_util.h"
#include "sim/hw/soc_spec.h"
#include "sim/runtime/data_driven.h"
#include "sim/runtime/simulate_run.h"
#include "sim/systems/llm_npu/outlier_calibration.h"
#include "sim/systems/llm_npu/outlier_plan.h"
#include "tests/support/configured_system.h"
#include "tests/unit/functional/edited_layer_weights.h"
#include "tests/unit/functional/functional_test_helpers.h"

namespace socsim::systems {
namespace {

struct ShadowRun : test::ConfiguredSystem {
  explicit ShadowRun(std::vector<std::string> sets = {}) : ConfiguredSystem("snapdragon-8gen3", [&] {
    sets.insert(sets.begin(), {"llm_npu.chunk=16", "llm_npu.outlier_prune=0"});  // every layer keeps its shadow path
    return sets;
  }()) {
    req.model = functional::test::tiny_model();
    req.prompt_tokens = 40, req.decode_tokens = 1, req.seed = 3;
    req.mode = runtime::Mode::kFunctional;
    configure("llm-npu");
  }
  functional::FunctionalResult functional(std::uint32_t outlier_channels) {
    functional::FunctionalOptions o;
    o.synthetic.outlier_channels = outlier_channels;
    return functional::run_functional_with_data(req, *system, o);
  }
  report::RunReport timed(const runtime::DataDriven& d) {
    runtime::RunRequest r = req;
    r.data_driven = d;
    report::TraceRecorder t;
    return runtime::simulate_run(r, *system, t);
  }
};

TEST(LlmNpuDataDriven, CountsFollowTheActivationsOutliers) {
  functional::SyntheticWeights w(functional::test::tiny_model(), 3, {});
  kernels::Tensor x = functional::f32_matrix(2, 64);
  llm_npu::OutlierCalibrationOptions o;
  o.tokens = 16, o.outlier_channels = 2, o.hot_channels = 0.05;  // 4 hot channels of 64
  const auto cal = llm_npu::calibrate_outliers(functional::test::tiny_model(), w, 9, o);
  ASSERT_EQ(cal.groups.size(), 2u * 4u);  // 2 layers x (q_proj, o_proj, gate_proj, down_proj)
  const llm_npu::GroupScale& g = *cal.find(0, "q_proj");
  EXPECT_EQ(std::count(g.hot.begin(), g.hot.end(), 1), 4);
  // A channel pushed past 127 x scale is an outlier; cold unless it is hot.
  auto d = x.data<float>();
  EXPECT_EQ(llm_npu::count_outliers(x, g).channels, 0u);
  std::size_t hot = 0, cold = 0;
  while (!g.hot[hot]) ++hot;
  while (g.hot[cold]) ++cold;
  d[hot] = 200 * g.scale;
  d[64 + cold] = -200 * g.scale;
  const auto n = llm_npu::count_outliers(x, g);
  EXPECT_EQ(n.channels, 2u);
  EXPECT_EQ(n.cold, 1u);
}

TEST(LlmNpuDataDriven, MoreOutliersInTheDataMoveFunctionalTimingNotTimingMode) {
  ShadowRun few, many;
  const auto a = few.functional(1), b = many.functional(12);
  ASSERT_FALSE(a.data.empty());
  // Every shadow job of the plan got its count.
  const auto plan = few.plan();
  std::size_t shadow_jobs = 0;
  for (const auto& j : plan.jobs) shadow_jobs += j.name.find(".shadow.") != std::string::npos ? 1 : 0;
  EXPECT_EQ(a.data.shadow_jobs.size(), shadow_jobs);
  double ca = 0, cb = 0;
  for (const auto& [name, n] : a.data.shadow_jobs) ca += static_cast<double>(n.channels);
  for (const auto& [name, n] : b.data.shadow_jobs) cb += static_cast<double>(n.channels);
  EXPECT_GT(cb, ca);  // the data's outlier channels, not the option's 10
  EXPECT_EQ(a.data.summary["llm_npu.outlier_channels"]["timing_mode"]["channels"], 10);
  // Timing: the shadow work follows the data in functional mode...
  const auto ra = few.timed(a.data), rb = many.timed(b.data);
  const auto cpu = [](const report::RunReport& r) {
    for (const auto& u : r.units) {
      if (u.name == "cpu") return u.busy_ms;
    }
    return -1.0;
  };
  EXPECT_GT(cpu(rb), cpu(ra));
  // ...and timing mode, which has no data, is the same whatever the weights.
  const auto ta = few.timed({}), tb = many.timed({});
  EXPECT_EQ(cpu(ta), cpu(tb));
  EXPECT_EQ(ta.prefill_ms, tb.prefill_ms);
}

TEST(LlmNpuDataDriven, ThePlanFollowsTheMeasuredShadowJobs) {
  ShadowRun r;
  const std::string name = llm_npu::shadow_job_name(0, 0, "o_proj");
  const auto planned = [&](const runtime::DataDriven& d) {
    return r.system->plan_with(&d, r.req.soc, r.req.model, {r.req.prompt_tokens, r.req.decode_tokens, r.req.batch});
  };
  const auto find = [&](const runtime::Plan& plan) {
    const auto it = std::find_if(plan.jobs.begin(), plan.jobs.end(), [&](const runtime::Job& j) { return j.name == name; });
    return it == plan.jobs.end() ? nullptr : &*it;
  };
  const auto merges = [](const runtime::Plan& plan) {
    std::size_t n = 0;
    for (const auto& j : plan.jobs) {
      n += static_cast<std::size_t>(std::count_if(j.ops.begin(), j.ops.end(), [](const model::GraphOp& g) { return g.op.name == "outlier_merge"; }));
    }
    return n;
  };
  runtime::DataDriven d;
  d.shadow_jobs[name] = {3, 2};
  const runtime::Plan three = planned(d);
  const runtime::Job* job = find(three);
  ASSERT_NE(job, nullptr);
  const std::uint64_t n = job->ops.front().op.n;
  EXPECT_EQ(job->ops.front().op.k, 3u);
  EXPECT_EQ(job->ops.front().op.weight_params, 3u * n);
  EXPECT_EQ(job->storage_read_bytes, 2u * n);
  // The other shadow jobs keep the modelled 10 channels.
  const std::string other = llm_npu::shadow_job_name(1, 0, "o_proj");
  const auto it = std::find_if(three.jobs.begin(), three.jobs.end(), [&](const runtime::Job& j) { return j.name == other; });
  ASSERT_NE(it, three.jobs.end());
  EXPECT_EQ(it->ops.front().op.k, 10u);
  // No outlier in that chunk: no shadow job, and the float subgraph after it merges nothing.
  d.shadow_jobs[name] = {0, 0};
  const runtime::Plan none = planned(d);
  EXPECT_EQ(find(none), nullptr);
  EXPECT_EQ(none.jobs.size(), three.jobs.size() - 1);
  EXPECT_EQ(merges(none), merges(three) - 1);
  for (const auto& j : none.jobs) {
    for (const auto dep : j.deps) EXPECT_LT(dep, none.jobs.size());
  }
  // A measured job the plan does not have is a bug of the caller, not a silent skip.
  d.shadow_jobs["prefill.c9.L0.shadow.q_proj"] = {1, 1};
  EXPECT_THROW(planned(d), std::logic_error);
}

// Weights whose layer `loud`'s input norm lifts one channel 1000-fold: that layer's q_proj input
// has a far larger outlier over its scale than any other layer's.
functional::test::EditedLayerWeights loud_layer(const model::ModelConfig& m, std::uint32_t loud) {
  return {m, 3, loud, [](functional::LayerWeights& w) { w.input_norm.weight[5] *= 1000.0f; }, "loud layer"};
}

std::set<std::uint32_t> shadow_npu_layers(const runtime::Plan& plan) {
  std::set<std::uint32_t> kept;
  for (const auto& j : plan.jobs) {
    if (j.unit == kernels::Unit::kNpu && j.outliers == runtime::OutlierHandling::kShadow) kept.insert(j.ops.front().layer);
  }
  return kept;
}

TEST(LlmNpuDataDriven, MeasuredImportancePicksTheKeptLayers) {
  const auto m = functional::test::tiny_model();  // 2 layers
  llm_npu::OutlierCalibrationOptions o;
  o.tokens = 16, o.outlier_channels = 2;
  const auto quiet = llm_npu::calibrate_outliers(m, loud_layer(m, 99), 9, o);
  const auto loud = llm_npu::calibrate_outliers(m, loud_layer(m, 1), 9, o);
  ASSERT_EQ(loud.layer_importance.size(), 2u);
  // max|x| / s = 127 x the largest channel max over the (outlier_channels + 1)-th largest: >= 127.
  for (double v : quiet.layer_importance) EXPECT_GE(v, 127.0);
  EXPECT_GT(loud.layer_importance[1], 5 * quiet.layer_importance[1]);
  EXPECT_DOUBLE_EQ(loud.layer_importance[0], quiet.layer_importance[0]);  // layer 0 sees the same data
  // Pruning half: the table keeps layer 0 (a tie, the lower index), the measurement layer 1.
  EXPECT_EQ(llm_npu::shadow_layers(2, 0.5), (std::vector<bool>{true, false}));
  EXPECT_EQ(llm_npu::shadow_layers(loud.layer_importance, 0.5), (std::vector<bool>{false, true}));
  // The plan follows the measurement when it covers every layer, else the table.
  ShadowRun r({"llm_npu.outlier_prune=0.5"});
  EXPECT_EQ(shadow_npu_layers(r.plan()), (std::set<std::uint32_t>{0}));
  runtime::DataDriven d;
  d.layer_importance = loud.layer_importance;
  const auto with = [&] { return r.system->plan_with(&d, r.req.soc, r.req.model, {r.req.prompt_tokens, r.req.decode_tokens, r.req.batch}); };
  EXPECT_EQ(shadow_npu_layers(with()), (std::set<std::uint32_t>{1}));
  EXPECT_EQ(shadow_npu_layers(r.plan()), (std::set<std::uint32_t>{0}));  // the data held for that plan only
  d.layer_importance.pop_back();
  EXPECT_EQ(shadow_npu_layers(with()), (std::set<std::uint32_t>{0}));
}

TEST(LlmNpuDataDriven, FunctionalModeReportsAndTimesTheMeasuredKeptLayers) {
  ShadowRun r({"llm_npu.outlier_prune=0.5"});
  const auto f = r.functional(4);
  ASSERT_EQ(f.data.layer_importance.size(), 2u);
  const auto& s = f.data.summary["llm_npu.shadow_layers"];
  const auto kept = llm_npu::shadow_layers(f.data.layer_importance, 0.5);
  const std::uint32_t expect = kept[0] ? 0 : 1;
  EXPECT_EQ(s["kept"], nlohmann::ordered_json::array({expect}));
  EXPECT_EQ(s["timing_mode"]["kept"], nlohmann::ordered_json::array({0}));
  // The shadow jobs measured are the kept layer's, and the timed plan runs them.
  for (const auto& [name, n] : f.data.shadow_jobs) EXPECT_NE(name.find(".L" + std::to_string(expect) + "."), std::string::npos) << name;
  EXPECT_NO_THROW(r.timed(f.data));
  // Fewer layers computed than the model has: the table picks, and the report says so.
  functional::FunctionalOptions one;
  one.layers = 1;
  const auto partial = functional::run_functional_with_data(r.req, *r.system, one);
  EXPECT_TRUE(partial.data.layer_importance.empty());
  EXPECT_NE(partial.data.summary["llm_npu.shadow_layers"]["source"].get<std::string>().find("1 of 2 layers"), std::string::npos);
}

}  // namespace
}  // namespace socsim::systems
