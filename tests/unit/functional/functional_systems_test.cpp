// Every baseline system's plan runs in functional mode, with the kernels its placement implies.
#include <gtest/gtest.h>

#include "functional_test_helpers.h"
#include "kernels/tensor/kernel_time.h"
#include "sim/config/config_tree.h"
#include "sim/functional/functional_run.h"
#include "sim/hw/soc_spec.h"

namespace socsim::functional {
namespace {

const std::string kRoot = SOCSIM_SOURCE_DIR;

nlohmann::ordered_json run_system(const std::string& id, const std::string& set = "") {
  auto tree = config::ConfigTree::load_file(kRoot + "/soc_configs/snapdragon-8gen3.yaml");
  if (!set.empty()) tree.apply_override(set);
  runtime::RunRequest req;
  req.soc = hw::parse_soc_spec(tree);
  req.model = test::tiny_model();
  req.system = id;
  req.mode = runtime::Mode::kFunctional;
  req.prompt_tokens = 40, req.decode_tokens = 2, req.batch = 2, req.seed = 3;
  auto system = systems::SystemRegistry::builtin().make(id);
  auto root = tree.root();
  system->configure(root, req.soc, req.model);
  return run_functional(req, *system, {});
}

TEST(FunctionalSystems, EveryBaselineRunsWithItsKernels) {
  const auto cpu = run_system("cpu-only");
  EXPECT_EQ(cpu["attention"], (nlohmann::ordered_json{{"cpu/fp32", "fp32"}}));
  const auto gpu = run_system("gpu-only");
  EXPECT_EQ(gpu["attention"], (nlohmann::ordered_json{{"gpu/w4a16", "fp16-flash-exact"}}));
  const auto naive = run_system("npu-naive");  // float ops and decode on the CPU
  EXPECT_EQ(naive["attention"], (nlohmann::ordered_json{{"cpu/fp32", "fp32"}}));
  const auto npu = run_system("npu-only");
  EXPECT_EQ(npu["attention"], (nlohmann::ordered_json{{"npu/w4a16", "fp16-flash-lut"}}));
  // 40 tokens under the default padding policy: one chunk padded to 64; pipe cuts 32 + 8 (padded to 32).
  const auto pipe = run_system("npu-only", "npu.shape_policy=pipe");
  for (const auto* j : {&cpu, &gpu, &naive, &npu, &pipe}) {
    EXPECT_EQ((*j)["positions"], 6);  // (prefill + 2 decode steps) x 2 sequences
    EXPECT_EQ((*j)["functional_layers"], 2);
    EXPECT_EQ((*j)["weights"], "synthetic:seed=3");
    EXPECT_GT((*j)["logits_rel_error"].get<double>(), 0.0);
    EXPECT_LT((*j)["logits_rel_error"].get<double>(), 1.0);
  }
  // W4A16 numerics do not depend on the chunking: pipe and padding give the same rows (FP16
  // flash attention's tiles differ, so not bit-identical, but close).
  EXPECT_NEAR(pipe["hidden_rel_error"].get<double>(), npu["hidden_rel_error"].get<double>(), 0.02);
}

// The bench's split of functional mode's time: the system's kernels and the FP32 reference forward
// each count on their own clock, and both run in every functional run.
TEST(FunctionalSystems, TheSystemAndTheReferenceCountOnTheirOwnClocks) {
  const double system_before = kernels::kernel_seconds(), reference_before = kernels::kernel_seconds(kernels::KernelClock::kReference);
  run_system("npu-only");
  EXPECT_GT(kernels::kernel_seconds() - system_before, 0.0);
  EXPECT_GT(kernels::kernel_seconds(kernels::KernelClock::kReference) - reference_before, 0.0);
}

}  // namespace
}  // namespace socsim::functional
