// `socsim calibrate`: writes a shadowattn importance file that `run` then reads; bad input exits 2
// naming the option and writes nothing.
#include <gtest/gtest.h>

#include "tests/cli/cli_test_util.h"

namespace socsim::test {
namespace {

TEST(CliCalibrate, WritesAFileRunReads) {
  const auto dir = scratch_dir("calibrate");
  const auto file = dir / "q.importance.json";
  const auto c = run_socsim("calibrate --model qwen2-0.5b --layers 1 --tokens 8 --scored 2 --vocab-rows 256 --out '" + file.string() + "'");
  ASSERT_EQ(c.exit_code, 0) << c.err;
  EXPECT_NE(c.out.find("1 of 24 layers calibrated"), std::string::npos) << c.out;
  const auto j = nlohmann::json::parse(read_file(file));
  EXPECT_EQ(j["model"], "qwen2-0.5b");
  EXPECT_EQ(j["layers_calibrated"], 1);
  EXPECT_EQ(j["head_importance"].size(), 24u);
  // Layers beyond the calibrated one get the calibrated means.
  EXPECT_EQ(j["head_importance"][5], j["head_importance"][23]);

  const auto r = run_socsim_json("run --soc snapdragon-8gen3 --model qwen2-0.5b --system shadowattn --prompt 64 --decode 1 --set shadowattn.importance_file='" +
                                     file.string() + "'",
                                 "calibrate_run");
  EXPECT_EQ(r["system_info"]["importance"]["source"].get<std::string>().rfind("offline file q.importance.json", 0), 0u);
  EXPECT_EQ(r["system_info"]["importance"]["layers_calibrated"], 1);
}

TEST(CliCalibrate, BadInputExits2AndWritesNothing) {
  const auto dir = scratch_dir("calibrate_bad");
  const auto file = dir / "x.json";
  const std::pair<std::string, std::string> cases[] = {
      {"--model qwen2-0.5b --system llm-npu", "--system"},
      {"--model qwen2-0.5b --layers 25", "--layers"},
      {"--model qwen2-0.5b --tokens 2 --scored 4", "--tokens"},
      {"--model no-such-model", "--model"},
      {"--layers 1", "--model"},
  };
  for (const auto& [args, key] : cases) {
    const auto r = run_socsim("calibrate " + args + " --out '" + file.string() + "'");
    EXPECT_EQ(r.exit_code, 2) << args << "\n" << r.err;
    EXPECT_NE(r.err.find(key), std::string::npos) << args << "\n" << r.err;
    EXPECT_FALSE(std::filesystem::exists(file)) << args;
  }
  const auto r = run_socsim("calibrate --model qwen2-0.5b");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--out"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace socsim::test
