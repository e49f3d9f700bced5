// tts-npu end to end on qwen2-0.5b (small and quick): options and their rejection, the NPU
// footprint against the address space, lm_head on the CPU, the kernels' variants reaching the
// decode time, batched decode on HMX tiles, the reward role.
#include <gtest/gtest.h>

#include <cmath>

#include "sim/config/config_error.h"
#include "sim/functional/attention_exec.h"
#include "sim/hw/soc_spec.h"
#include "sim/runtime/simulate_run.h"
#include "sim/systems/system.h"
#include "sim/systems/tts_npu/tts_memory.h"
#include "tests/support/configured_system.h"

namespace socsim::systems {
namespace {

const std::string kRoot = SOCSIM_SOURCE_DIR;

struct TtsRun : test::ConfiguredSystem {
  TtsRun(std::uint64_t batch, std::vector<std::string> sets = {}, const std::string& soc = "snapdragon-8gen3",
         const std::string& model = "qwen2-0.5b", std::uint64_t prompt = 32, std::uint64_t decode = 2)
      : ConfiguredSystem(soc, sets) {
    req.model = model::load_model_config(kRoot + "/models/" + model + ".json");
    req.prompt_tokens = prompt, req.decode_tokens = decode, req.batch = batch;
    configure("tts-npu");
  }
};

TEST(TtsNpu, PlanPlacesLayersOnTheNpuWithoutGraphsAndLmHeadOnTheCpu) {
  TtsRun r(4, {"tts.dequant=hmx-layout", "tts.exp=fp16"});
  const auto plan = r.plan();
  bool lm_head_on_cpu = false;
  for (const auto& j : plan.jobs) {
    for (const auto& g : j.ops) {
      if (g.op.name == "lm_head") lm_head_on_cpu = j.unit == kernels::Unit::kCpu && j.cpu_threads == 4;
      if (g.op.name == "q_proj") {
        EXPECT_EQ(j.unit, kernels::Unit::kNpu);
        EXPECT_TRUE(j.npu_graph.empty());  // custom kernels, no static graph
        EXPECT_TRUE(j.npu_kernels.hmx_gemv);
        EXPECT_EQ(j.npu_kernels.dequant, kernels::DequantLayout::kHmxLayout);
        EXPECT_EQ(j.npu_kernels.exp, kernels::ExpVariant::kPoly);
        EXPECT_TRUE(j.npu_kernels.q8_0_down);
      }
    }
  }
  EXPECT_TRUE(lm_head_on_cpu);
  EXPECT_EQ(plan.info["dequant"], "hmx-layout");
  EXPECT_EQ(plan.info["exp"], "fp16");
  TtsRun npu_head(1, {"tts.lm_head_unit=npu"});
  for (const auto& j : npu_head.plan().jobs) {
    for (const auto& g : j.ops) {
      if (g.op.name == "lm_head") {
        EXPECT_EQ(j.unit, kernels::Unit::kNpu);
      }
    }
  }
}

TEST(TtsNpu, OptionsAreCheckedAndRejectedForOtherSystems) {
  EXPECT_THROW(TtsRun(1, {"tts.dequant=fast"}), config::ConfigError);
  EXPECT_THROW(TtsRun(1, {"tts.exp=exact"}), config::ConfigError);
  EXPECT_THROW(TtsRun(1, {"tts.lm_head_units=cpu"}), config::ConfigError);  // did-you-mean
  // Another system leaves the tts section unread: an error.
  config::ConfigTree tree = config::ConfigTree::load_file(kRoot + "/soc_configs/snapdragon-8gen3.yaml");
  tree.apply_override("tts.exp=lut");
  const auto soc = hw::parse_soc_spec(tree);
  auto gpu = SystemRegistry::builtin().make("gpu-only");
  auto root = tree.root();
  gpu->configure(root, soc, model::load_model_config(kRoot + "/models/qwen2-0.5b.json"));
  EXPECT_THROW(tree.check_all_consumed(), config::ConfigError);
}

TEST(TtsNpu, FootprintAgainstTheAddressSpace) {
  // Hand count, qwen2-0.5b (hidden 896, 24 layers, 14/2 heads of 64, FFN 4864): per layer q 896^2
  // + k, v 2 x 896 x 128 + o 896^2 + gate, up 2 x 896 x 4864 at 18/32 B; down 896 x 4864 at 34/32 B.
  const auto m = model::load_model_config(kRoot + "/models/qwen2-0.5b.json");
  const auto f = tts::npu_footprint(m, 3, 100, false, true);
  const double rest = 896.0 * 896 * 2 + 2 * 896 * 128 + 2 * 896 * 4864.0;
  EXPECT_EQ(f.layer_weights, static_cast<std::uint64_t>(std::ceil(24 * (rest * 18 / 32 + 896.0 * 4864 * 34 / 32))));
  EXPECT_EQ(f.kv_cache, 3u * 100 * 2 * 24 * 128 * 2);  // K and V, 2 kv heads x 64, FP16
  EXPECT_EQ(f.lm_head + f.logits, 0u);
  const auto g = tts::npu_footprint(m, 3, 100, true, true);
  EXPECT_EQ(g.logits, 3u * m.vocab * 4);
  // 3B on 8 Gen 2 (2 GiB): weights alone fit; 16 samples' 4096-token caches do not (exit 2).
  EXPECT_NO_THROW(TtsRun(1, {}, "snapdragon-8gen2", "qwen2.5-3b").plan());
  EXPECT_THROW(TtsRun(16, {"tts.kv_context=4096"}, "snapdragon-8gen2", "qwen2.5-3b").plan(), config::ConfigError);
  EXPECT_THROW(TtsRun(1, {"tts.kv_context=16"}).plan(), config::ConfigError);  // below prompt + decode
}

TEST(TtsNpu, BatchedDecodeAndKernelVariants) {
  const auto b1 = TtsRun(1).run(), b8 = TtsRun(8).run();
  // One HMX tile holds up to 32 rows: a step for 8 samples takes far less than 8 steps for one
  // (the weights stream and dequantize once); decode throughput grows with the batch.
  EXPECT_LT(*b8.decode_ms_per_token, 2 * *b1.decode_ms_per_token);
  EXPECT_GT(*b8.decode_tokens_per_s, 4 * *b1.decode_tokens_per_s);
  // The CPU runs lm_head (its only matmul), growing with the batch.
  const double head1 = b1.extra["op_time_ms"]["cpu"]["matmul"].get<double>();
  EXPECT_GT(head1, 0.0);
  EXPECT_GT(b8.extra["op_time_ms"]["cpu"]["matmul"].get<double>(), head1);
  // The ablation order reaches the decode time.
  auto step_ms = [](std::vector<std::string> sets) { return *TtsRun(1, std::move(sets)).run().decode_ms_per_token; };
  const double none = step_ms({"tts.dequant=none"}), coalesced = step_ms({}), baseline = step_ms({"tts.dequant=baseline"});
  EXPECT_LT(none, coalesced);
  EXPECT_LT(coalesced, baseline);
  EXPECT_LT(step_ms({}), step_ms({"tts.exp=fp32"}));  // LUT faster than the FP32 polynomial
  EXPECT_LT(coalesced, step_ms({"tts.prefetch=false"}));  // double buffering hides the weights' DMA
}

TEST(TtsNpu, RewardRoleScoresWithAValueHead) {
  TtsRun r(4, {"tts.role=reward"}, "snapdragon-8gen3", "qwen2-0.5b", 48, 0);
  const auto plan = r.plan();
  bool value_head = false;
  for (const auto& j : plan.jobs) {
    for (const auto& g : j.ops) {
      EXPECT_NE(g.op.name, "lm_head");
      if (g.op.name == "value_head") value_head = j.unit == kernels::Unit::kCpu && g.op.m == 48 * 4 && g.op.n == 1;
    }
  }
  EXPECT_TRUE(value_head);
  EXPECT_GT(*r.run().total_ms, 0.0);
  EXPECT_THROW(TtsRun(4, {"tts.role=reward"}).plan(), config::ConfigError);  // decode > 0
}

TEST(TtsNpu, FunctionalAttentionFollowsTheJobsExp) {
  using functional::AttentionKind;
  functional::OpPlacement p{kernels::Unit::kNpu, runtime::Precision::kW4A16, runtime::OutlierHandling::kMinMax, 0, {}};
  EXPECT_EQ(functional::attention_kind(p), AttentionKind::kFlashLut);  // the default choice
  p.npu_kernels.exp = kernels::ExpVariant::kPoly;
  EXPECT_EQ(functional::attention_kind(p), AttentionKind::kFlashPoly);
  p.npu_kernels.exp = kernels::ExpVariant::kExact;
  EXPECT_EQ(functional::attention_kind(p), AttentionKind::kFlashExact);
  p.precision = runtime::Precision::kW8A8;
  EXPECT_EQ(functional::attention_kind(p), AttentionKind::kInt8);
}

}  // namespace
}  // namespace socsim::systems
