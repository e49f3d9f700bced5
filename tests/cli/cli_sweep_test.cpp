// `socsim sweep` end to end: results independent of --jobs, shards merge to the whole sweep,
// per-run reports, and a bad spec exits 2 naming file:line with nothing written.
#include <fstream>

#include "tests/cli/cli_test_util.h"

namespace socsim::test {
namespace {

const char* kSpec =
    "name: small\n"
    "base:\n"
    "  soc: snapdragon-8gen3\n"
    "  model: qwen2-0.5b\n"
    "  prompt: 64\n"
    "  decode: 2\n"
    "grid:\n"
    "  system: [cpu-only, llm-npu]\n"
    "  npu.tcm: [2MiB, 8MiB]\n"
    "metrics: [ttft_ms, decode_ms_per_token, units.npu.busy_ms]\n";

std::filesystem::path write(const std::filesystem::path& dir, const std::string& name, const std::string& text) {
  std::ofstream(dir / name) << text;
  return dir / name;
}

// A sweep of one npu-only run (npu.clock=1GHz), for the per-run reports.
std::string one_run_spec(const std::filesystem::path& dir) {
  return write(dir, "one.yaml",
               "base: {soc: snapdragon-8gen3, model: qwen2-0.5b, system: npu-only, prompt: 32, decode: 0}\n"
               "grid:\n  npu.clock: [1GHz]\n")
      .string();
}

TEST(CliSweep, JobsDoNotChangeResultsAndShardsMergeToTheWhole) {
  const auto dir = scratch_dir("sweep_jobs");
  const auto spec = write(dir, "small.yaml", kSpec).string();
  const auto one = run_socsim("sweep --spec '" + spec + "' --jobs 1 --out '" + (dir / "j1").string() + "'");
  ASSERT_EQ(one.exit_code, 0) << one.err;
  EXPECT_EQ(one.err, "");  // no progress bar when stderr is not a terminal
  EXPECT_NE(one.out.find("sweep small: 4 of 4 runs"), std::string::npos) << one.out;
  ASSERT_EQ(run_socsim("sweep --spec '" + spec + "' --jobs 3 --out '" + (dir / "j3").string() + "'").exit_code, 0);
  const auto csv = read_file(dir / "j1" / "results.csv");
  EXPECT_EQ(csv, read_file(dir / "j3" / "results.csv"));
  EXPECT_EQ(read_file(dir / "j1" / "results.json"), read_file(dir / "j3" / "results.json"));
  EXPECT_EQ(csv.substr(0, csv.find('\n')), "run,system,npu.tcm,ttft_ms,decode_ms_per_token,units.npu.busy_ms");
  EXPECT_NE(csv.find("\n3,llm-npu,8MiB,"), std::string::npos) << csv;

  // The TCM size reaches the run: llm-npu's NPU time differs between 2 and 8 MiB, cpu-only's does not.
  const auto j = nlohmann::json::parse(read_file(dir / "j1" / "results.json"));
  EXPECT_NE(j["runs"][2]["metrics"]["units.npu.busy_ms"], j["runs"][3]["metrics"]["units.npu.busy_ms"]);
  EXPECT_EQ(j["runs"][0]["metrics"]["ttft_ms"], j["runs"][1]["metrics"]["ttft_ms"]);

  for (int i = 0; i < 2; ++i) {
    const auto r = run_socsim("sweep --spec '" + spec + "' --shard " + std::to_string(i) + "/2 --out '" + (dir / ("s" + std::to_string(i))).string() + "'");
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }
  const auto m = run_socsim("sweep merge --out '" + (dir / "m").string() + "' '" + (dir / "s1").string() + "' '" + (dir / "s0").string() + "'");
  ASSERT_EQ(m.exit_code, 0) << m.err;
  EXPECT_EQ(read_file(dir / "m" / "results.csv"), csv);
  const auto partial = run_socsim("sweep merge --out '" + (dir / "p").string() + "' '" + (dir / "s1").string() + "'");
  EXPECT_EQ(partial.exit_code, 2);
  EXPECT_NE(partial.err.find("2 of 4 runs are in no shard: 0, 2"), std::string::npos) << partial.err;
  EXPECT_FALSE(std::filesystem::exists(dir / "p"));
}

TEST(CliSweep, ReportsPerRun) {
  const auto dir = scratch_dir("sweep_reports");
  const auto spec = one_run_spec(dir);
  const auto r = run_socsim("sweep --spec '" + spec + "' --reports --out '" + (dir / "o").string() + "'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const char* f : {"report.html", "trace.json", "report.json"}) EXPECT_TRUE(std::filesystem::exists(dir / "o" / "runs" / "0" / f)) << f;
  const auto elsewhere = run_socsim("sweep --spec '" + spec + "' --report-dir '" + (dir / "r").string() + "' --out '" + (dir / "o2").string() + "'");
  ASSERT_EQ(elsewhere.exit_code, 0) << elsewhere.err;
  EXPECT_TRUE(std::filesystem::exists(dir / "r" / "0" / "report.html"));
  EXPECT_EQ(read_file(dir / "r" / "0" / "trace.json"), read_file(dir / "o" / "runs" / "0" / "trace.json"));
  // The run's report is the one `socsim run` writes for the same options.
  // Except the engine's own counts: a run with a trace simulates every NPU run event by event, one
  // without replays those that ran alone before (sim/runtime/npu_alone_replay.h), and the events
  // the replays saved make up the difference exactly.
  auto direct = run_socsim_json("run --soc snapdragon-8gen3 --model qwen2-0.5b --system npu-only --prompt 32 --decode 0 --set npu.clock=1GHz",
                                "sweep_reports_direct");
  auto swept = nlohmann::json::parse(read_file(dir / "o" / "runs" / "0" / "report.json"));
  EXPECT_GT(swept.at("events").get<std::uint64_t>(), direct.at("events").get<std::uint64_t>());
  EXPECT_EQ(swept.at("events_saved_by_replays").get<std::uint64_t>(), 0u);
  EXPECT_EQ(swept.at("events").get<std::uint64_t>(),
            direct.at("events").get<std::uint64_t>() + direct.at("events_saved_by_replays").get<std::uint64_t>());
  for (auto* j : {&swept, &direct}) j->erase("events"), j->erase("events_saved_by_replays");
  EXPECT_EQ(swept, direct);
}

// --trace-detail sets how much of each run's timeline its trace.json keeps, as `socsim run`'s
// does; without reports it has nothing to apply to, and a value it does not know is refused.
TEST(CliSweep, TraceDetailOfEachRunsReports) {
  const auto dir = scratch_dir("sweep_trace_detail");
  const auto spec = one_run_spec(dir);
  const std::string sweep = "sweep --spec '" + spec + "' --out '" + (dir / "o").string() + "'";
  ASSERT_EQ(run_socsim(sweep + " --reports").exit_code, 0);
  const auto whole = read_file(dir / "o" / "runs" / "0" / "trace.json");
  const auto r = run_socsim(sweep + " --reports --trace-detail summary");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("(1 runs' reports, "), std::string::npos) << r.out;
  const auto summary = read_file(dir / "o" / "runs" / "0" / "trace.json");
  EXPECT_LT(summary.size(), whole.size());
  EXPECT_NE(whole.find("\"npu.hmx\""), std::string::npos);
  EXPECT_EQ(summary.find("\"npu.hmx\""), std::string::npos);
  const auto run = run_socsim("run --soc snapdragon-8gen3 --model qwen2-0.5b --system npu-only --prompt 32 --decode 0 --set npu.clock=1GHz "
                              "--trace-detail summary --report-dir '" + (dir / "run").string() + "'");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(read_file(dir / "run" / "trace.json"), summary);
  for (const auto& [args, why] : std::vector<std::pair<std::string, std::string>>{
           {" --trace-detail summary", "--trace-detail: applies only with --reports or --report-dir"},
           {" --reports --trace-detail most", "--trace-detail: expected auto, full or summary, got 'most'"}}) {
    const auto bad = run_socsim("sweep --spec '" + spec + "' --out '" + (dir / "bad").string() + "'" + args);
    EXPECT_EQ(bad.exit_code, 2) << args;
    EXPECT_NE(bad.err.find(why), std::string::npos) << bad.err;
    EXPECT_FALSE(std::filesystem::exists(dir / "bad"));
  }
}

TEST(CliSweep, BadSpecNamesFileLineKeyAndWritesNothing) {
  const auto dir = scratch_dir("sweep_bad");
  const auto spec = write(dir, "bad.yaml",
                          "base: {soc: snapdragon-8gen3, model: qwen2-0.5b, system: llm-npu, prompt: 64, decode: 0}\n"
                          "grid:\n"
                          "  npu.tcm:\n"
                          "    - 4MiB\n"
                          "    - 1KiB\n")
                        .string();
  const auto r = run_socsim("sweep --spec '" + spec + "' --out '" + (dir / "o").string() + "'");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("bad.yaml:5: npu.tcm: run 1 (npu.tcm=1KiB)"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(dir / "o"));

  write(dir, "typo.yaml", "base: {soc: snapdragon-8gen3, model: qwen2-0.5b, system: cpu-only, prompt: 64, decode: 0}\ngrid:\n  seed: [1]\nmetrics: [ttft_ms, ttft]\n");
  const auto t = run_socsim("sweep --spec '" + (dir / "typo.yaml").string() + "' --out '" + (dir / "t").string() + "'");
  EXPECT_EQ(t.exit_code, 2);
  // Checked against the report's keys before anything runs.
  EXPECT_NE(t.err.find("typo.yaml:4: metrics: 'ttft': no key 'ttft' in a run's report"), std::string::npos) << t.err;
  EXPECT_NE(t.err.find("did you mean ttft_ms?"), std::string::npos) << t.err;
  EXPECT_FALSE(std::filesystem::exists(dir / "t"));

  EXPECT_EQ(run_socsim("sweep --spec no-such-sweep --out x").exit_code, 2);
  EXPECT_EQ(run_socsim("sweep --spec tcm-x-npu-freq --shard 2/2 --out x").exit_code, 2);
}

TEST(CliSweep, ShippedTcmByNpuClockSpecExpands) {
  const auto r = run_socsim("sweep --spec tcm-x-npu-freq --dry-run");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("15  npu.tcm=16MiB npu.clock=1.5GHz"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("--system llm-npu"), std::string::npos);
}

}  // namespace
}  // namespace socsim::test
