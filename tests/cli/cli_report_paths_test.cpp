// The metric paths a sweep accepts before running (report::check_report_path) are the ones real
// reports hold: every number in the reports of systems that fill different sections passes, and
// near misses are refused with a suggestion.
#include "sim/report/report_paths.h"

#include "tests/cli/cli_test_util.h"

namespace socsim::test {
namespace {

// Every path to a number in `j` ("units.npu.busy_ms"); list elements are skipped (sweeps name
// object keys).
void number_paths(const nlohmann::json& j, const std::string& prefix, std::vector<std::string>& out) {
  if (j.is_number()) {
    out.push_back(prefix);
    return;
  }
  if (!j.is_object()) return;
  for (const auto& [k, v] : j.items()) number_paths(v, prefix.empty() ? k : prefix + "." + k, out);
}

TEST(CliReportPaths, EveryNumberOfRealReportsIsAcceptedAndTyposAreNot) {
  const std::vector<std::string> runs = {
      "run --soc snapdragon-8gen3 --model qwen2-0.5b --system llm-npu --prompt 64 --decode 2",
      "run --soc snapdragon-8gen2 --model qwen2-0.5b --system shadowattn --prompt 128 --decode 1",
      "run --soc snapdragon-8gen3 --model qwen2-0.5b --system hetero-tensor --prompt 64 --decode 2 --set workload.gpu_background=4ms",
      "run --soc snapdragon-8gen3 --model qwen2-0.5b --system cpu-only --workload droidtask",
  };
  std::size_t checked = 0;
  for (std::size_t i = 0; i < runs.size(); ++i) {
    const auto j = run_socsim_json(runs[i], "report_paths_" + std::to_string(i));
    std::vector<std::string> paths;
    number_paths(j, "", paths);
    for (const auto& p : paths) {
      const auto why = report::check_report_path(p);
      EXPECT_FALSE(why) << runs[i] << ": " << *why;
      ++checked;
    }
  }
  EXPECT_GT(checked, 100u);
  const auto typo = report::check_report_path("units.npu.busy");
  ASSERT_TRUE(typo);
  EXPECT_NE(typo->find("did you mean busy_ms?"), std::string::npos) << *typo;
  EXPECT_TRUE(report::check_report_path("units.npu"));          // a section, not a number
  EXPECT_TRUE(report::check_report_path("ttft_ms.value"));      // below a number
  EXPECT_TRUE(report::check_report_path("dram..bytes"));        // an empty segment
  EXPECT_FALSE(report::check_report_path("op_time_ms.npu.matmul"));  // a section whose keys vary
}

}  // namespace
}  // namespace socsim::test
