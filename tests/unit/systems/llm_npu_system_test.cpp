// llm-npu end to end on the 8 Gen 3 model: the ablation ordering, out-of-order execution filling
// NPU bubbles, FFN-first placement for 7B models, and the accuracy of the outlier paths.
#include <gtest/gtest.h>

#include "sim/functional/functional_run.h"
#include "sim/hw/soc_spec.h"
#include "sim/runtime/simulate_run.h"
#include "sim/systems/llm_npu/llm_npu_options.h"
#include "tests/unit/functional/functional_test_helpers.h"

namespace socsim::systems {
namespace {

const std::string kRoot = SOCSIM_SOURCE_DIR;

struct LlmRun {
  config::ConfigTree tree = config::ConfigTree::load_file(kRoot + "/soc_configs/snapdragon-8gen3.yaml");
  runtime::RunRequest req;
  std::unique_ptr<System> system;
  LlmRun(const std::string& id, const std::string& model, std::uint64_t prompt, std::vector<std::string> sets = {}) {
    for (const auto& s : sets) tree.apply_override(s);
    req.soc_id = "snapdragon-8gen3";
    req.soc = hw::parse_soc_spec(tree);
    req.model = model.empty() ? functional::test::tiny_model() : model::load_model_config(kRoot + "/models/" + model + ".json");
    req.system = id;
    req.prompt_tokens = prompt, req.decode_tokens = 2;
    system = SystemRegistry::builtin().make(id);
    auto root = tree.root();
    system->configure(root, req.soc, req.model);
    tree.check_all_consumed();
  }
  report::RunReport run(report::TraceRecorder* trace = nullptr) {
    report::TraceRecorder own;
    return runtime::simulate_run(req, *system, trace ? *trace : own);
  }
};

double ttft(const std::string& id, std::vector<std::string> sets = {}) {
  return *LlmRun(id, "qwen1.5-1.8b", 512, std::move(sets)).run().ttft_ms;
}

TEST(LlmNpuSystem, EachTechniqueShortensThePrefill) {
  const double naive = ttft("npu-naive");
  const double chunk = ttft("llm-npu", {"llm_npu.shadow_outliers=false", "llm_npu.ooe=false"});
  const double outlier = ttft("llm-npu", {"llm_npu.ooe=false"});
  const double ooe = ttft("llm-npu");
  EXPECT_LT(chunk, naive);    // graphs prepared once per chunk length instead of per prompt
  EXPECT_LT(outlier, chunk);  // per-tensor W8A8 instead of per-group sub-GEMMs
  EXPECT_LT(ooe, outlier);    // NPU and CPU overlap across chunks
  EXPECT_LT(ooe, ttft("cpu-only"));
}

TEST(LlmNpuSystem, EquivalentShapesShortenTheNpuPrefill) {
  // Without the preparation-stage shape search the graphs take [tokens, 1, hidden]: width 1 pads
  // to a whole 8-bit crouton, so every NPU matmul moves and multiplies 8x the positions.
  const auto best = LlmRun("llm-npu", "qwen1.5-1.8b", 512).run();
  const auto column = LlmRun("llm-npu", "qwen1.5-1.8b", 512, {"llm_npu.equivalent_shapes=false"}).run();
  EXPECT_EQ(best.extra["system_info"]["npu_activation_layout"], "equivalent-shape");
  EXPECT_EQ(column.extra["system_info"]["npu_activation_layout"], "tokens-as-height");
  const auto npu_busy = [](const report::RunReport& r) {
    for (const auto& u : r.units) {
      if (u.name == "npu") return u.busy_ms;
    }
    return -1.0;
  };
  EXPECT_GT(npu_busy(best), 0.0);
  EXPECT_GT(npu_busy(column), 1.5 * npu_busy(best));
  EXPECT_GT(*column.ttft_ms, *best.ttft_ms);
  EXPECT_THROW(LlmRun("llm-npu", "qwen1.5-1.8b", 64, {"llm_npu.equivalent_shapes=maybe"}), config::ConfigError);
}

TEST(LlmNpuSystem, OutOfOrderFillsNpuBubblesAndInterleavesUnits) {
  report::TraceRecorder trace;
  const auto ooe = LlmRun("llm-npu", "qwen1.5-1.8b", 1024).run(&trace);
  const auto in_order = LlmRun("llm-npu", "qwen1.5-1.8b", 1024, {"llm_npu.ooe=false"}).run();
  EXPECT_LT(ooe.extra["prefill_npu_idle_ms"].get<double>(), in_order.extra["prefill_npu_idle_ms"].get<double>());
  // Some NPU span overlaps some CPU span in time: the units run at once.
  bool overlap = false;
  for (const auto& n : trace.spans()) {
    if (n.track.rfind("npu", 0) != 0) continue;
    for (const auto& c : trace.spans()) {
      if (c.track.rfind("cpu", 0) == 0 && c.start < n.end && n.start < c.end) overlap = true;
    }
    if (overlap) break;
  }
  EXPECT_TRUE(overlap);
  const auto& info = ooe.extra["system_info"];
  EXPECT_EQ(info["chunks"], 4);
  EXPECT_LT(info["npu_graph_memory_mib"]["shared"].get<double>(), info["npu_graph_memory_mib"]["unshared"].get<double>());
  EXPECT_EQ(info["shadow_layers"], 4);  // ceil(0.15 * 24)
}

TEST(LlmNpuSystem, CpuAttentionInFp16HalvesTheFloatCriticalPath) {
  // At 1024 tokens the CPU's attention GEMMs bound the prefill (the NPU waits on them): FP16 FMAs
  // (twice the FP32 lanes on the prime and mid cores) shorten the CPU's attention time by about
  // half, and the prefill with it.
  const auto f16 = LlmRun("llm-npu", "qwen1.5-1.8b", 1024).run();
  const auto f32 = LlmRun("llm-npu", "qwen1.5-1.8b", 1024, {"llm_npu.cpu_float=fp32"}).run();
  EXPECT_EQ(f16.extra["system_info"]["cpu_float"], "fp16");
  const auto attention = [](const report::RunReport& r) {
    const auto& cpu = r.extra["op_time_ms"]["cpu"];
    return cpu["attn_scores"].get<double>() + cpu["attn_context"].get<double>();
  };
  EXPECT_NEAR(attention(f16) / attention(f32), 0.5, 0.05);
  EXPECT_LT(*f16.ttft_ms, *f32.ttft_ms);
}

TEST(LlmNpuSystem, SevenBModelsSpanTwoSessionsOrGoFfnFirstInOne) {
  // llama-2-7b: 6.2 GiB of INT8 layer weights, more than one session's 4 GiB.
  const auto two = LlmRun("llm-npu", "llama-2-7b", 256).run();
  const auto& info = two.extra["system_info"];
  EXPECT_TRUE(info["all_layers_on_npu"].get<bool>());
  EXPECT_EQ(info["npu_sessions"], 2);
  EXPECT_EQ(info["cpu_weight_mib"].get<double>(), 0.0);
  const auto one = LlmRun("llm-npu", "llama-2-7b", 256, {"npu.max_sessions=1"}).run();
  const auto& ffn_first = one.extra["system_info"];
  EXPECT_FALSE(ffn_first["all_layers_on_npu"].get<bool>());
  EXPECT_GT(ffn_first["cpu_weight_mib"].get<double>(), 0.0);
  EXPECT_LE(ffn_first["npu_weight_mib"].get<double>(), 4096.0);
  // The CPU's INT8 attention projections bound the one-session prefill.
  EXPECT_GT(*one.ttft_ms, 2 * *two.ttft_ms);
}

TEST(LlmNpuSystem, BadOptionsAreRejected) {
  EXPECT_THROW(LlmRun("llm-npu", "qwen1.5-1.8b", 64, {"llm_npu.chunk=0"}), config::ConfigError);
  EXPECT_THROW(LlmRun("llm-npu", "qwen1.5-1.8b", 64, {"llm_npu.float_unit=dsp"}), config::ConfigError);
  EXPECT_THROW(LlmRun("llm-npu", "qwen1.5-1.8b", 64, {"llm_npu.cpu_float=bf16"}), config::ConfigError);
  EXPECT_THROW(LlmRun("llm-npu", "qwen1.5-1.8b", 64, {"llm_npu.activation_scale=minmax", "llm_npu.shadow_outliers=false"}),
               config::ConfigError);
  EXPECT_THROW(LlmRun("llm-npu", "qwen1.5-1.8b", 64, {"llm_npu.oe=false"}), config::ConfigError);  // did you mean ooe
  // Outliers in hot channels when none is resident, or cold ones when all are.
  EXPECT_THROW(LlmRun("llm-npu", "qwen1.5-1.8b", 64, {"llm_npu.hot_channels=0", "llm_npu.hot_hit=0.8"}), config::ConfigError);
  EXPECT_THROW(LlmRun("llm-npu", "qwen1.5-1.8b", 64, {"llm_npu.hot_channels=1", "llm_npu.hot_hit=0.5"}), config::ConfigError);
}

// The hot set decides how many outliers miss it: the paper's point (3% -> 80%), none and all
// resident at the ends, more resident never fewer hits; and timing mode's cold rows follow it (they
// stayed at 20% of the outliers whatever hot_channels said).
TEST(LlmNpuSystem, HotChannelsDecideTheColdReads) {
  EXPECT_NEAR(llm_npu::hot_hit_of(0.03), 0.8, 1e-12);
  EXPECT_EQ(llm_npu::hot_hit_of(0.0), 0.0);
  EXPECT_EQ(llm_npu::hot_hit_of(1.0), 1.0);
  for (double h = 0.001; h < 1; h *= 1.5) EXPECT_LT(llm_npu::hot_hit_of(h), llm_npu::hot_hit_of(std::min(1.0, h * 1.5)));
  const auto storage = [](const std::string& hot) {
    const auto r = LlmRun("llm-npu", "qwen1.5-1.8b", 512, {"llm_npu.hot_channels=" + hot}).run();
    for (const auto& u : r.units) {
      if (u.name == "storage") return u.busy_ms;
    }
    ADD_FAILURE() << "no storage unit in the report";
    return -1.0;
  };
  const double none = storage("0"), paper = storage("0.03"), all = storage("1");
  EXPECT_GT(none, paper);
  EXPECT_GT(paper, 0.0);
  EXPECT_EQ(all, 0.0);
}

double functional_error(std::vector<std::string> sets) {
  LlmRun s("llm-npu", "", 40, std::move(sets));
  s.req.mode = runtime::Mode::kFunctional;
  s.req.seed = 3;
  return functional::run_functional(s.req, *s.system, {})["logits_rel_error"].get<double>();
}

TEST(LlmNpuSystem, ShadowOutliersRecoverPerTensorAccuracy) {
  // The tiny model's activations carry persistent outlier channels (synthetic_weights.h).
  const double shadow = functional_error({"llm_npu.chunk=16", "llm_npu.outlier_prune=0"});
  const double minmax = functional_error({"llm_npu.chunk=16", "llm_npu.activation_scale=minmax"});
  const double dropped = functional_error({"llm_npu.chunk=16", "llm_npu.outlier_prune=1"});
  EXPECT_LT(shadow, minmax);          // the outliers squeeze every other value's resolution
  EXPECT_LT(shadow, 0.1 * dropped);   // and carry signal that clipping loses
  // Offline scales are profiled on calibration data, not on the input: with no channel left out
  // of range there, the scale spans the calibration's largest activation, so the input's own
  // min-max scale (which no static graph knows) is not reproduced, but the outliers still are.
  const double c0 = functional_error({"llm_npu.chunk=16", "llm_npu.outlier_prune=0", "llm_npu.outlier_channels=0"});
  EXPECT_NE(c0, minmax);
  EXPECT_LT(c0, 0.1 * dropped);
}

}  // namespace
}  // namespace socsim::systems
