// Sweep specs: loading, expansion order, sharding, and errors that name file:line:key.
#include <gtest/gtest.h>

#include <fstream>

#include "sim/config/config_error.h"
#include "sim/sweep/sweep_plan.h"
#include "sim/sweep/sweep_spec.h"
#include "tests/support/scratch_dir.h"

namespace socsim::sweep {
namespace {

std::filesystem::path write_spec(const std::string& name, const std::string& yaml) {
  const auto dir = test::fresh_scratch_dir("socsim_sweep_spec_", name);
  const auto file = dir / (name + ".yaml");
  std::ofstream(file) << yaml;
  return file;
}

const char* kTwoByThree =
    "name: t\n"
    "base:\n"
    "  soc: snapdragon-8gen3\n"
    "  prompt: 64\n"
    "  set:\n"
    "    llm_npu.chunk: 32\n"
    "grid:\n"
    "  npu.tcm: [2MiB, 4MiB]\n"
    "  system: [cpu-only, llm-npu, gpu-only]\n";

TEST(SweepSpec, GridExpandsLastAxisFastestWithRunOptionsAndSetKeys) {
  const auto spec = load_sweep_spec(write_spec("grid", kTwoByThree));
  EXPECT_EQ(spec.name, "t");
  const auto plan = expand_sweep(spec);
  ASSERT_EQ(plan.runs.size(), 6u);
  EXPECT_EQ(plan.columns, (std::vector<std::string>{"npu.tcm", "system"}));
  EXPECT_EQ(plan.runs[1].label(), "npu.tcm=2MiB system=llm-npu");
  EXPECT_EQ(plan.runs[3].label(), "npu.tcm=4MiB system=cpu-only");
  EXPECT_EQ(plan.runs[4].args, (std::vector<std::string>{"--soc", "snapdragon-8gen3", "--prompt", "64", "--set", "llm_npu.chunk=32",
                                                          "--set", "npu.tcm=4MiB", "--system", "llm-npu"}));
  // The settings keep their YAML lines: line 8 holds the npu.tcm values.
  EXPECT_EQ(plan.runs[4].settings[0].location.line, 8);
  EXPECT_EQ(spec.metrics, default_metrics());
}

TEST(SweepSpec, CasesCrossTheGridAndFingerprintTracksTheRuns) {
  const auto a = load_sweep_spec(write_spec("cases",
                                            "base: {prompt: 64, decode: 0}\n"
                                            "runs:\n"
                                            "  - {system: cpu-only, model: qwen2-0.5b}\n"
                                            "  - {system: llm-npu}\n"
                                            "grid:\n"
                                            "  seed: [1, 2]\n"));
  const auto plan = expand_sweep(a);
  ASSERT_EQ(plan.runs.size(), 4u);
  EXPECT_EQ(plan.columns, (std::vector<std::string>{"system", "model", "seed"}));
  EXPECT_EQ(plan.runs[2].label(), "system=llm-npu seed=1");
  const auto b = load_sweep_spec(write_spec("cases2", "base: {prompt: 64, decode: 0}\nruns:\n  - {system: cpu-only, model: qwen2-0.5b}\n  - {system: llm-npu}\ngrid:\n  seed: [1, 3]\n"));
  EXPECT_NE(expand_sweep(b).fingerprint, plan.fingerprint);
  EXPECT_EQ(expand_sweep(a).fingerprint, plan.fingerprint);
}

TEST(SweepSpec, ShardsPartitionTheRunsBalancedByCost) {
  const auto plan = expand_sweep(load_sweep_spec(write_spec("shard", kTwoByThree)));
  ASSERT_EQ(plan.runs.size(), 6u);
  // Costs 6, 1, 1, 6, 1, 1 (the last axis varies fastest: striding by 3 put both 6s in shard 0).
  const std::vector<double> cost{6, 1, 1, 6, 1, 1};
  std::vector<int> seen(plan.runs.size(), 0);
  std::vector<double> load(3, 0);
  for (std::size_t i = 0; i < 3; ++i) {
    for (const auto* r : shard_runs(plan, parse_shard(std::to_string(i) + "/3"), cost)) {
      ++seen[r->index];
      load[i] += cost[r->index];
    }
  }
  for (int s : seen) EXPECT_EQ(s, 1);
  // Greedy, most expensive first: {6}, {6}, {1, 1, 1, 1}.
  EXPECT_EQ(load, (std::vector<double>{6, 6, 4}));
  EXPECT_EQ(assign_shards(cost, 3), (std::vector<std::size_t>{0, 2, 2, 1, 2, 2}));
  // Equal costs: every shard gets its share, deterministically.
  const auto even = assign_shards(std::vector<double>(6, 1.0), 4);
  EXPECT_EQ(even, (std::vector<std::size_t>{0, 1, 2, 3, 0, 1}));
  EXPECT_THROW(shard_runs(plan, parse_shard("0/2"), {1.0}), std::logic_error);
  EXPECT_THROW(parse_shard("4/4"), config::ConfigError);
  EXPECT_THROW(parse_shard("1"), config::ConfigError);
  EXPECT_THROW(parse_shard("a/2"), config::ConfigError);
  EXPECT_THROW(parse_shard("0/0"), config::ConfigError);
}

std::string error_of(const std::string& yaml) {
  try {
    load_sweep_spec(write_spec("bad", yaml));
  } catch (const config::ConfigError& e) {
    return e.what();
  }
  return "no error";
}

TEST(SweepSpec, BadSpecsNameFileLineAndKey) {
  EXPECT_NE(error_of("base: {prompt: 64}\ngird:\n  npu.tcm: [1MiB]\n").find("bad.yaml:2: gird: unknown key; did you mean 'grid'?"),
            std::string::npos)
      << error_of("base: {prompt: 64}\ngird:\n  npu.tcm: [1MiB]\n");
  EXPECT_NE(error_of("grid:\n  npu.tcm: 4MiB\n").find("bad.yaml:2: grid.npu.tcm: expected a non-empty list"), std::string::npos)
      << error_of("grid:\n  npu.tcm: 4MiB\n");
  EXPECT_NE(error_of("grid:\n  npu.tcm: [4MiB, ~]\n").find("bad.yaml:2: grid.npu.tcm[1]: expected a value, got an empty value"), std::string::npos)
      << error_of("grid:\n  npu.tcm: [4MiB, ~]\n");
  // A run option's values are scalars; a parameter's may be lists (below).
  EXPECT_NE(error_of("grid:\n  prompt: [64, [1, 2]]\n").find("grid.prompt[1]: expected a scalar value, got a list"), std::string::npos)
      << error_of("grid:\n  prompt: [64, [1, 2]]\n");
  EXPECT_NE(error_of("base:\n  set: {npu.tcm: }\ngrid:\n  seed: [1]\n").find("base.set.npu.tcm: expected a value"), std::string::npos)
      << error_of("base:\n  set: {npu.tcm: }\ngrid:\n  seed: [1]\n");
  EXPECT_NE(error_of("base: {json: x.json}\ngrid:\n  seed: [1]\n").find("base.json: the sweep writes the outputs"), std::string::npos);
  EXPECT_NE(error_of("base: {seed: 1}\ngrid:\n  seed: [1, 2]\n").find("bad.yaml:3: grid.seed: is also set in base"), std::string::npos)
      << error_of("base: {seed: 1}\ngrid:\n  seed: [1, 2]\n");
  EXPECT_NE(error_of("base: {seed: 1}\n").find("needs a `grid:`"), std::string::npos);
  // runs: is a list of maps; anything else says so (a null or a number was "expected a map").
  for (const char* runs : {"runs: ~\n", "runs: 5\n", "runs: {prompt: 8}\n"}) {
    EXPECT_NE(error_of(std::string("base: {seed: 1}\n") + runs).find("bad.yaml:2: runs: expected a list"), std::string::npos)
        << error_of(std::string("base: {seed: 1}\n") + runs);
  }
}

TEST(SweepSpec, AParameterTakesAListOrMapAsSetDoesInFlowForm) {
  const auto spec = load_sweep_spec(write_spec("lists",
                                               "base:\n"
                                               "  prompt: 64\n"
                                               "  set:\n"
                                               "    dram.concurrency_efficiency: [1.0, 0.9]\n"
                                               "runs:\n"
                                               "  - {npu: {tcm: 8MiB}}\n"
                                               "grid:\n"
                                               "  heterollm.standard_lengths: [[64, 128], \"[256]\", [\"a, b\"]]\n"));
  const auto plan = expand_sweep(spec);
  ASSERT_EQ(plan.runs.size(), 3u);
  EXPECT_EQ(plan.runs[0].args, (std::vector<std::string>{"--prompt", "64", "--set", "dram.concurrency_efficiency=[1.0, 0.9]", "--set",
                                                          "npu={tcm: 8MiB}", "--set", "heterollm.standard_lengths=[64, 128]"}));
  EXPECT_EQ(plan.runs[1].label(), "npu={tcm: 8MiB} heterollm.standard_lengths=[256]");
  // A scalar that needs quotes in flow form keeps them, so --set reads the same value back.
  EXPECT_EQ(plan.runs[2].settings.back().value, "[\"a, b\"]");
  // A list written as YAML and as a quoted flow string is one value, listed twice.
  EXPECT_NE(error_of("grid:\n  heterollm.standard_lengths: [[64, 128], \"[64, 128.0]\"]\n").find("is listed twice"), std::string::npos);
  EXPECT_NE(error_of("grid:\n  decode: [0, -0]\n").find("is listed twice"), std::string::npos);  // -0 is 0
}

}  // namespace
}  // namespace socsim::sweep
