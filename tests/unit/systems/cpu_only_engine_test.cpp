// cpu-only's kernel library (cpu_only.engine): llama.cpp's kernels by default, the SoC file's
// optimized rates on request; the option's checks and what each engine does to a run.
#include <gtest/gtest.h>

#include "sim/config/config_error.h"
#include "sim/hw/hardware_limit_error.h"
#include "sim/model/model_config.h"
#include "tests/support/configured_system.h"

namespace socsim::systems {
namespace {

const std::string kRoot = SOCSIM_SOURCE_DIR;

struct CpuOnlyRun : test::ConfiguredSystem {
  CpuOnlyRun(std::vector<std::string> sets, std::uint64_t prompt = 600, std::uint64_t decode = 2)
      : ConfiguredSystem("snapdragon-8gen3", std::move(sets)) {
    req.model = model::load_model_config(kRoot + "/models/qwen2-0.5b.json");
    req.prompt_tokens = prompt, req.decode_tokens = decode, req.batch = 1;
    configure("cpu-only");
  }
};

TEST(CpuOnlyEngine, LlamaCppIsTheDefaultWithItsThreadsAndBatches) {
  CpuOnlyRun r({});
  const auto plan = r.plan();
  EXPECT_EQ(plan.info["cpu_engine"], "llamacpp");
  EXPECT_EQ(plan.info["cpu_threads"], 4);  // half of the 8 cores: llama.cpp's early-2024 default -t
  std::uint64_t prefill_steps = 0;
  for (const auto& j : plan.jobs) {
    for (const auto& g : j.ops) {
      if (g.op.name == "q_proj" && g.phase == model::Phase::kPrefill) prefill_steps = std::max(prefill_steps, g.step + 1);
    }
    if (j.name.find(".sample") == std::string::npos) {
      EXPECT_EQ(j.cpu_engine, runtime::CpuEngine::kLlamaCpp) << j.name;
    }
  }
  EXPECT_EQ(prefill_steps, 2u);  // 600 tokens in batches of 512
}

TEST(CpuOnlyEngine, OptimizedKeepsTheSustainedRates) {
  CpuOnlyRun r({"cpu_only.engine=optimized"});
  const auto plan = r.plan();
  EXPECT_EQ(plan.info["cpu_engine"], "optimized");
  EXPECT_EQ(plan.info["cpu_threads"], 6);  // prime + mid
  for (const auto& j : plan.jobs) EXPECT_EQ(j.cpu_engine, runtime::CpuEngine::kOptimized) << j.name;
}

TEST(CpuOnlyEngine, LlamaCppPrefillIsSlowerAtEqualThreads) {
  // Same cores (prime + 3 mid): llama.cpp's per-column vec_dot, its static split (the prime
  // core waits for the mid cores) and its full-width attention cost more than the tuned GEMMs.
  const auto lc = CpuOnlyRun({"cpu_only.threads=4"}).run();
  const auto opt = CpuOnlyRun({"cpu_only.engine=optimized", "cpu_only.threads=4"}).run();
  ASSERT_TRUE(lc.prefill_ms && opt.prefill_ms);
  EXPECT_GT(*lc.prefill_ms, 1.5 * *opt.prefill_ms);
}

TEST(CpuOnlyEngine, TheTx2RunsLlamaCppWithEmulatedDotProducts) {
  // ARMv8.0 cores: each SDOT of the vec_dot kernels becomes 6 micro-ops, so the same matmuls take
  // longer than with dot products on the same pipes.
  test::ConfiguredSystem tx2("jetson-tx2", {});
  tx2.req.model = model::load_model_config(kRoot + "/models/qwen2-0.5b.json");
  tx2.req.prompt_tokens = 64, tx2.req.decode_tokens = 0;
  tx2.configure("cpu-only");
  const auto emulated = tx2.run();
  test::ConfiguredSystem dp("jetson-tx2", {"cpu.clusters.a57.dotprod=true", "cpu.clusters.denver2.dotprod=true"});
  dp.req.model = tx2.req.model;
  dp.req.prompt_tokens = 64, dp.req.decode_tokens = 0;
  dp.configure("cpu-only");
  const auto with_sdot = dp.run();
  ASSERT_TRUE(emulated.prefill_ms && with_sdot.prefill_ms);
  EXPECT_GT(*emulated.prefill_ms, 1.3 * *with_sdot.prefill_ms);
}

TEST(CpuOnlyEngine, BadOptionsAndMissingPipesAreRefused) {
  EXPECT_THROW(CpuOnlyRun({"cpu_only.engine=mkl"}), config::ConfigError);
  EXPECT_THROW(CpuOnlyRun({"cpu_only.threads=9"}), config::ConfigError);
  EXPECT_THROW(CpuOnlyRun({"cpu_only.threads=0"}), config::ConfigError);
  EXPECT_THROW(CpuOnlyRun({"cpu.clusters.mid.simd_pipes=0"}), config::ConfigError);  // 1..16 when given
  // The llama.cpp engine needs every cluster's pipe count: a SoC without it is refused naming the
  // key (exit 2 from the CLI); the optimized engine does not need it.
  test::ConfiguredSystem s("snapdragon-8gen3", {});
  s.req.model = model::load_model_config(kRoot + "/models/qwen2-0.5b.json");
  s.req.soc.cpu.clusters[1].simd_pipes = 0;
  try {
    s.configure("cpu-only");
    FAIL() << "expected hw::HardwareLimitError";
  } catch (const hw::HardwareLimitError& e) {
    EXPECT_EQ(e.key(), "cpu.clusters." + s.req.soc.cpu.clusters[1].name + ".simd_pipes");
  }
  test::ConfiguredSystem opt("snapdragon-8gen3", {"cpu_only.engine=optimized"});
  opt.req.model = s.req.model;
  opt.req.soc.cpu.clusters[1].simd_pipes = 0;
  EXPECT_NO_THROW(opt.configure("cpu-only"));
}

}  // namespace
}  // namespace socsim::systems
