// trace.json of a real run: unit processes, job tracks without overlapping slices, and every
// synchronization arrow anchored inside a slice at both ends (else Perfetto drops it).
#include "tests/cli/cli_test_util.h"

namespace socsim::test {
namespace {

TEST(CliTrace, JobTracksAndSyncFlowsBindToSlices) {
  const auto dir = scratch_dir("trace_flows");
  const auto r = run_socsim("run --soc snapdragon-8gen3 --model qwen2-0.5b --system llm-npu --prompt 64 --decode 2 --report-dir '" + dir.string() + "'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto ev = nlohmann::json::parse(read_file(dir / "trace.json"))["traceEvents"];
  std::map<std::pair<int, int>, std::string> names;
  std::set<std::string> processes;
  std::map<std::pair<int, int>, std::vector<std::pair<double, double>>> slices;
  for (const auto& e : ev) {
    if (e["name"] == "thread_name") names[{e["pid"], e["tid"]}] = e["args"]["name"];
    if (e["name"] == "process_name") processes.insert(e["args"]["name"].get<std::string>());
    if (e["ph"] == "X") slices[{e["pid"], e["tid"]}].push_back({e["ts"].get<double>(), e["ts"].get<double>() + e["dur"].get<double>()});
  }
  EXPECT_TRUE(processes.count("NPU") && processes.count("CPU") && processes.count("DRAM"));
  std::set<std::string> tracks;
  for (const auto& [k, n] : names) tracks.insert(n);
  for (const char* t : {"npu.jobs", "cpu.jobs", "npu.hmx", "npu.dma"}) EXPECT_TRUE(tracks.count(t)) << t;
  // Job slices on one track are disjoint or nested (a sync inside its job), never crossing.
  for (const auto& [k, v] : slices) {
    if (names[k].find(".jobs") == std::string::npos) continue;
    auto s = v;
    std::sort(s.begin(), s.end(), [](auto a, auto b) { return a.first != b.first ? a.first < b.first : a.second > b.second; });
    for (std::size_t i = 1; i < s.size(); ++i) {
      const bool nested = s[i].second <= s[i - 1].second;
      const bool after = s[i].first >= s[i - 1].second - 1e-9;
      EXPECT_TRUE(nested || after) << names[k] << " slice " << i;
    }
  }
  int flows = 0;
  for (const auto& e : ev) {
    if (e["ph"] != "s" && e["ph"] != "f") continue;
    ++flows;
    const double ts = e["ts"];
    bool inside = false;
    for (const auto& [a, b] : slices[{e["pid"], e["tid"]}]) inside = inside || (a <= ts && ts <= b);
    EXPECT_TRUE(inside) << e.dump();
  }
  EXPECT_GT(flows, 0);
  EXPECT_EQ(flows % 2, 0);
}

}  // namespace
}  // namespace socsim::test
