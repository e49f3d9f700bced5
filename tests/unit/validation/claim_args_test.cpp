// A command block maps to the command line exactly as typed by hand.
#include <gtest/gtest.h>

#include "sim/config/config_tree.h"
#include "sim/validation/claim.h"
#include "sim/validation/command_args.h"
#include "tests/unit/validation/validation_test_helpers.h"

namespace socsim::validation {
namespace {

using testing::capture_config_error;

std::vector<std::string> args_of(const std::string& block_yaml) {
  config::ConfigTree tree = config::ConfigTree::load_string("run: " + block_yaml + "\n", "a.yaml");
  return command_args(tree.root().child("run"));
}

TEST(ClaimArgs, KeysBecomeOptionsInDocumentOrder) {
  EXPECT_EQ(args_of("{soc: snapdragon-8gen3, op: matmul, unit: npu, dtype: int8, m: 64}"),
            (std::vector<std::string>{"--soc", "snapdragon-8gen3", "--op", "matmul", "--unit", "npu", "--dtype",
                                      "int8", "--m", "64"}));
}

TEST(ClaimArgs, NumbersKeepTheirYamlSpelling) {
  EXPECT_EQ(args_of("{bytes: 67108864, expect: 0.9, big: 1e3, q: \"gpu+npu\"}"),
            (std::vector<std::string>{"--bytes", "67108864", "--expect", "0.9", "--big", "1e3", "--q", "gpu+npu"}));
}

TEST(ClaimArgs, BooleansAreTrueFalse) {
  EXPECT_EQ(args_of("{fast: true, slow: false}"),
            (std::vector<std::string>{"--fast", "true", "--slow", "false"}));
}

TEST(ClaimArgs, SetBecomesRepeatedSetOptions) {
  EXPECT_EQ(args_of("{soc: s, set: {\"npu.tcm_kib\": 8192, dram.peak: 60GB/s}, prompt: 256}"),
            (std::vector<std::string>{"--soc", "s", "--set", "npu.tcm_kib=8192", "--set", "dram.peak=60GB/s",
                                      "--prompt", "256"}));
}

TEST(ClaimArgs, NonScalarValueIsAConfigError) {
  const auto e = capture_config_error([] { args_of("{soc: s,\n  prompt: [1, 2]}"); });
  EXPECT_EQ(e.key(), "run.prompt");
  EXPECT_EQ(e.location().line, 2);
  EXPECT_EQ(e.message(), "expected a scalar (number, string or true/false), got a list");
  const auto s = capture_config_error([] { args_of("{set: {a: {b: 1}}}"); });
  EXPECT_EQ(s.key(), "run.set.a");
  EXPECT_EQ(capture_config_error([] { args_of("{set: 5}"); }).key(), "run.set");
}

TEST(ClaimArgs, LoadedClaimCarriesTheArgv) {
  const auto claims = load_claims_string(
      "claims:\n  - {id: a, source: s, run: {soc: snapdragon-8gen3, prompt: 8, set: {\"npu.tcm_kib\": 8192}},"
      " metric: prompt_tokens, expect: 8, tolerance: 0.1}\n",
      "c.yaml");
  EXPECT_EQ(claims.at(0).value.args,
            (std::vector<std::string>{"--soc", "snapdragon-8gen3", "--prompt", "8", "--set", "npu.tcm_kib=8192"}));
}

}  // namespace
}  // namespace socsim::validation
