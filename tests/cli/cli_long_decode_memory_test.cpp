// Host memory of a long decode is O(1) per token (issue #20 class 3: timing mode once kept about
// 1.2 MB per decode token, 11 GB at decode 10000). A 20000-token decode must finish under a
// 128 MiB --max-host-memory and its process's peak resident memory must stay under that too;
// at the old per-token cost it would need about 24 GB.
#include <sys/resource.h>

#include <gtest/gtest.h>

#include "tests/cli/cli_test_util.h"

namespace socsim::test {
namespace {

TEST(CliLongDecode, TwentyThousandTokensRunInBoundedHostMemory) {
#if defined(__SANITIZE_ADDRESS__)
  GTEST_SKIP() << "peak resident memory is ASan's (shadow memory, quarantine), not socsim's";
#else
  const auto dir = scratch_dir("long_decode");
  const auto json = dir / "r.json";
  // gpu-only: the cheapest decode step to simulate (~0.3 ms of host time per token).
  const auto r = run_socsim("run --soc snapdragon-8gen3 --model qwen2-0.5b --system gpu-only --prompt 16 --decode 20000 "
                            "--max-host-memory 128MiB --json '" + json.string() + "'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto report = nlohmann::json::parse(read_file(json));
  EXPECT_EQ(report.at("decode_tokens").get<int>(), 20000);
  // Every descendant this test process waited for (the shell and socsim): ru_maxrss in KiB.
  rusage children{};
  ASSERT_EQ(getrusage(RUSAGE_CHILDREN, &children), 0);
  EXPECT_LT(children.ru_maxrss, 128L * 1024) << "peak resident memory of the 20000-token decode, KiB";
  EXPECT_GT(children.ru_maxrss, 0L);
#endif
}

}  // namespace
}  // namespace socsim::test
