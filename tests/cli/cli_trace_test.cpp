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


// Track names of a trace.json.
std::set<std::string> track_names(const std::filesystem::path& trace_json) {
  std::set<std::string> tracks;
  const auto doc = nlohmann::json::parse(read_file(trace_json));
  for (const auto& e : doc["traceEvents"]) {
    if (e["name"] == "thread_name") tracks.insert(e["args"]["name"].get<std::string>());
  }
  return tracks;
}

TEST(CliTrace, SummaryDetailKeepsJobsAndTheReportDoesNotDependOnIt) {
  const auto dir = scratch_dir("trace_detail");
  const std::string run = "run --soc snapdragon-8gen3 --model qwen2-0.5b --system llm-npu --prompt 64 --decode 2";
  const auto full = run_socsim(run + " --trace-detail full --report-dir '" + (dir / "full").string() + "'");
  const auto summary = run_socsim(run + " --trace-detail summary --report-dir '" + (dir / "summary").string() + "'");
  const auto plain = run_socsim(run + " --json '" + (dir / "plain.json").string() + "'");
  ASSERT_EQ(full.exit_code, 0) << full.err;
  ASSERT_EQ(summary.exit_code, 0) << summary.err;
  ASSERT_EQ(plain.exit_code, 0) << plain.err;
  const auto full_tracks = track_names(dir / "full" / "trace.json");
  const auto summary_tracks = track_names(dir / "summary" / "trace.json");
  EXPECT_TRUE(full_tracks.count("npu.hmx") && full_tracks.count("npu.jobs"));
  EXPECT_TRUE(summary_tracks.count("npu.jobs") && summary_tracks.count("cpu.jobs"));
  for (const auto& t : summary_tracks) EXPECT_NE(t.find(".jobs"), std::string::npos) << t;
  // The figures are the same whether a trace was kept, in any detail, or not at all (the
  // report's DRAM traffic comes from byte counters, not from the bandwidth timeline). "events" is
  // the engine's own count: without a trace, NPU and CPU runs alone are replayed in one event each
  // (sim/runtime/npu_alone_replay.h), and the events they saved make up the difference exactly.
  const auto a = nlohmann::json::parse(read_file(dir / "full" / "report.json"));
  EXPECT_EQ(a, nlohmann::json::parse(read_file(dir / "summary" / "report.json")));
  auto untraced = nlohmann::json::parse(read_file(dir / "plain.json"));
  EXPECT_LT(untraced.at("events").get<std::uint64_t>(), a.at("events").get<std::uint64_t>());
  EXPECT_EQ(a.at("events_saved_by_replays").get<std::uint64_t>(), 0u);
  EXPECT_EQ(a.at("events").get<std::uint64_t>(),
            untraced.at("events").get<std::uint64_t>() + untraced.at("events_saved_by_replays").get<std::uint64_t>());
  auto traced = a;
  for (auto* j : {&traced, &untraced}) j->erase("events"), j->erase("events_saved_by_replays");
  EXPECT_EQ(traced, untraced);
}

TEST(CliTrace, TraceDetailNeedsAReportAndAKnownLevel) {
  const std::string run = "run --soc snapdragon-8gen3 --model qwen2-0.5b --system cpu-only --prompt 8 --decode 1";
  const auto alone = run_socsim(run + " --trace-detail full");
  EXPECT_EQ(alone.exit_code, 2);
  EXPECT_NE(alone.err.find("--trace-detail"), std::string::npos) << alone.err;
  EXPECT_NE(alone.err.find("--report-dir"), std::string::npos) << alone.err;
  const auto dir = scratch_dir("trace_detail_bad");
  const auto bad = run_socsim(run + " --trace-detail verbose --report-dir '" + dir.string() + "'");
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("expected auto, full or summary, got 'verbose'"), std::string::npos) << bad.err;
  EXPECT_FALSE(std::filesystem::exists(dir / "report.json"));
}

}  // namespace
}  // namespace socsim::test
