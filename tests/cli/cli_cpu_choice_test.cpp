// Which CPU cores a system's work lands on, seen end to end: a slightly faster cluster must not
// make a run slower. Both cases were discontinuities of CpuComplex::run_on_fastest, which ranked
// clusters by one core's peak rate alone (a metamorphic check found them).
#include <gtest/gtest.h>

#include <string>

#include <nlohmann/json.hpp>

#include "cli_test_util.h"

namespace socsim::test {
namespace {

TEST(CliCpuChoice, ShadowAttnHostWorkKeepsOffTheBudgetCoreWhicheverClusterRanksFirst) {
  // At 20.1 GB/s per mid core the mid cores outrank the prime core for the host's float work;
  // its five threads took all five mid cores, the budget's one included, and queued behind its
  // top-k and sparse attention: TTFT 733 ms against 492 at 20 GB/s. The budget's core is pinned
  // for the plan now, so both run on four mid cores and the prime core.
  const std::string base = "run --soc snapdragon-8gen3 --model qwen2-1.5b --system cg-block-sparse --prompt 512 --decode 0";
  const double slower = run_socsim_json(base + " --set cpu.clusters.mid.core_bandwidth=20GB/s", "cpu_choice_a")["ttft_ms"].get<double>();
  const double faster = run_socsim_json(base + " --set cpu.clusters.mid.core_bandwidth=20.1GB/s", "cpu_choice_b")["ttft_ms"].get<double>();
  EXPECT_LE(faster, slower * 1.001) << "20 GB/s: " << slower << " ms, 20.1 GB/s: " << faster << " ms";
}

TEST(CliCpuChoice, ASmallTaskDoesNotWakeAFasterIdleCluster) {
  // HeteroLLM's decode leaves a small CPU task per token. When the idle prime core became the
  // fastest for it (15 GB/s instead of 10), the task moved there and paid cpu.idle_wakeup
  // (1.5 ms) every token: 24.361 ms per token against 22.861. A core is chosen by when it would
  // finish, wake-up included, so the two match.
  const std::string base = "run --soc snapdragon-8gen3 --model qwen2-1.5b --system hetero-layer --prompt 512 --decode 16";
  const auto slow = run_socsim_json(base + " --set cpu.clusters.prime.core_bandwidth=10GB/s", "cpu_wake_a");
  const auto fast = run_socsim_json(base + " --set cpu.clusters.prime.core_bandwidth=15GB/s", "cpu_wake_b");
  EXPECT_LE(fast["decode_ms_per_token"].get<double>(), slow["decode_ms_per_token"].get<double>() * 1.001);
}

}  // namespace
}  // namespace socsim::test
