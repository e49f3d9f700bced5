// What-ifs on the NPU's threads, contexts, HMX units and TCM from the command line: the ones the
// hardware can run give results; the ones it cannot exit 2 naming the SoC key and write nothing.
#include <gtest/gtest.h>

#include <filesystem>

#include "cli_test_util.h"

namespace socsim::test {
namespace {

const std::string kTts = "run --soc snapdragon-8gen3 --model qwen2-0.5b --system tts-npu --prompt 32 --decode 1";
const std::string kLlmNpu = "run --soc snapdragon-8gen3 --model qwen2-0.5b --system llm-npu --prompt 32 --decode 1";

TEST(CliNpuWhatIf, ThreadContextAndHmxCountsRun) {
  for (const std::string& base : {kTts, kLlmNpu}) {
    for (const std::string set : {"npu.scalar_threads=1", "npu.scalar_threads=2", "npu.hvx.contexts=1", "npu.hvx.contexts=6",
                                  "npu.hmx.units=2", "npu.tcm=16MiB"}) {
      auto r = run_socsim(base + " --set " + set);
      EXPECT_EQ(r.exit_code, 0) << base << " --set " << set << "\n" << r.err;
    }
  }
}

TEST(CliNpuWhatIf, TcmTooSmallForTheKernelsExits2NamingTheKey) {
  const auto dir = scratch_dir("npu_whatif_tcm");
  for (const std::string& base : {kTts, kLlmNpu}) {
    auto r = run_socsim(base + " --set npu.tcm=32KiB --json '" + dir.string() + "/r.json'");
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_NE(r.err.find("npu.tcm:"), std::string::npos) << r.err;
    EXPECT_EQ(r.err.find("internal error"), std::string::npos) << r.err;
    EXPECT_FALSE(std::filesystem::exists(dir / "r.json"));
  }
  auto r = run_socsim("microbench --soc snapdragon-8gen3 --op matmul --unit npu --engine hvx --threads 8 --dtype fp16 --m 64 --k 64 --n 64 --operands tcm");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--threads: 8 HVX threads, but the NPU has 4 HVX contexts"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace socsim::test
