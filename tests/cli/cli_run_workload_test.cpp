// `socsim run --workload`: every drawn request is simulated, back to back.
#include <gtest/gtest.h>

#include <fstream>

#include <nlohmann/json.hpp>

#include "cli_test_util.h"

namespace socsim::test {
namespace {

TEST(CliRunWorkload, EveryRequestIsSimulated) {
  const auto dir = scratch_dir("run_workload");
  const auto r = run_socsim("run --soc snapdragon-8gen3 --model qwen2-0.5b --system gpu-only --workload droidtask --json '" +
                            (dir / "r.json").string() + "'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("workload droidtask: 10 requests"), std::string::npos) << r.out;
  const auto j = nlohmann::json::parse(read_file(dir / "r.json"));
  ASSERT_EQ(j["workload"]["per_request"].size(), 10u);  // droidtask.yaml: repeat 10
  std::uint64_t prompts = 0;
  for (const auto& q : j["workload"]["per_request"]) {
    EXPECT_GE(q["prompt"].get<std::uint64_t>(), 505u);
    EXPECT_LE(q["prompt"].get<std::uint64_t>(), 827u);
    prompts += q["prompt"].get<std::uint64_t>();
  }
  EXPECT_EQ(j["prompt_tokens"], prompts);
  // The header says the token counts are totals (a workload of one-token requests read as one long prompt).
  EXPECT_NE(r.out.find("prompt " + std::to_string(prompts) + " tokens, decode "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(" tokens in total over 10 requests"), std::string::npos) << r.out;
}

TEST(CliRunWorkload, LengthsBeyondTheContextAreRejected) {
  const auto dir = scratch_dir("run_workload_ctx");
  std::ofstream(dir / "long.yaml") << "prompt: {uniform: [100, 200000]}\ndecode: 8\nrepeat: 2\n";
  const auto r = run_socsim("run --soc snapdragon-8gen3 --model qwen2-0.5b --system gpu-only --workload '" + (dir / "long.yaml").string() +
                            "' --json '" + (dir / "r.json").string() + "'");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("long.yaml:1: prompt: workload 'long' allows"), std::string::npos) << r.err;  // the line to change
  EXPECT_NE(r.err.find("context"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(dir / "r.json"));
}

}  // namespace
}  // namespace socsim::test
