// `socsim serve` end to end: the report's keys, determinism, trace replay, and bad input exiting
// 2 with the option or key named and nothing written. Small model, few hours: fast.
#include <fstream>

#include "tests/cli/cli_test_util.h"

namespace socsim::test {
namespace {

const std::string kBase = "serve --soc snapdragon-8gen3 --model qwen2-0.5b --hours 4 --memory-budget 160MiB --set llms.max_context=1024";
// A replayed trace brings its own times (--hours, --rate and --pattern are refused beside it).
const std::string kTraceBase = "serve --soc snapdragon-8gen3 --model qwen2-0.5b --memory-budget 160MiB --set llms.max_context=1024";

TEST(CliServe, HelpNamesThePolicies) {
  const auto r = run_socsim("serve --help");
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.out.find("llms|lmk|swap|vllm-s|vllm-sq"), std::string::npos);
  EXPECT_NE(r.out.find("--latency-bound"), std::string::npos);
}

TEST(CliServe, ReportKeysAndByteIdenticalReruns) {
  const auto dir = scratch_dir("serve_keys");
  const std::string args = kBase + " --policy llms --contexts 4 --pattern markov --seed 3 --json ";
  ASSERT_EQ(run_socsim(args + (dir / "a.json").string()).exit_code, 0);
  ASSERT_EQ(run_socsim(args + (dir / "b.json").string()).exit_code, 0);
  EXPECT_EQ(read_file(dir / "a.json"), read_file(dir / "b.json"));
  const auto j = nlohmann::json::parse(read_file(dir / "a.json"));
  for (const char* k : {"mean_switch_ms", "p50_switch_ms", "p95_switch_ms", "p99_switch_ms", "max_active_contexts",
                        "storage_bytes_read", "storage_bytes_written", "energy_j", "by_contexts", "profiled_costs"}) {
    EXPECT_TRUE(j.contains(k)) << k;
  }
  EXPECT_EQ(j["by_contexts"].size(), 4u);
  EXPECT_EQ(j["policy"], "llms");
  EXPECT_EQ(j["pattern"], "markov");
  EXPECT_LE(j["p50_switch_ms"].get<double>(), j["p99_switch_ms"].get<double>());
  // The chunk I/O path: a layer per storage request, the I/O thread's host time reported.
  EXPECT_EQ(j["profiled_costs"]["storage_requests_per_chunk"], 24);  // qwen2-0.5b's layers
  EXPECT_GT(j["profiled_costs"]["host_per_chunk_ms"].get<double>(), 0);
  EXPECT_GT(j["io_host_ms"].get<double>(), 0);
  EXPECT_EQ(j["options"]["io_granularity"], "layer");
}

TEST(CliServe, ReplaysATraceAndNamesABadLine) {
  const auto dir = scratch_dir("serve_trace");
  {
    std::ofstream t(dir / "good.txt");
    t << "# time_s context delta_tokens\n0 0 300\n60 1 200\n120 0 50\n";
    std::ofstream b(dir / "bad.txt");
    b << "0 0 300\n10 5 20\n";
  }
  const auto j = run_socsim_json(kTraceBase + " --policy vllm-sq --contexts 2 --trace " + (dir / "good.txt").string(), "serve_trace_json");
  EXPECT_EQ(j["calls"], 3);
  EXPECT_EQ(j["pattern"], "trace");
  EXPECT_NEAR(j["calls_per_hour"].get<double>(), 90.0, 1e-9);  // the trace's own: 3 calls in 120 s, not --rate's default
  // The options that generate a trace are refused beside one (they were ignored without a word).
  for (const char* o : {"--hours 4", "--rate 1/1min", "--pattern markov"}) {
    const auto refused = run_socsim(kTraceBase + " --policy vllm-sq --contexts 2 " + o + " --trace " + (dir / "good.txt").string());
    EXPECT_EQ(refused.exit_code, 2) << o;
    EXPECT_NE(refused.err.find(std::string(o).substr(0, std::string(o).find(' ')) + ": does not apply with --trace"), std::string::npos) << refused.err;
  }
  const auto r = run_socsim(kTraceBase + " --policy llms --contexts 2 --trace " + (dir / "bad.txt").string() + " --json " +
                            (dir / "out.json").string());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("bad.txt:2"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("trace.context"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(dir / "out.json"));
}

TEST(CliServe, FunctionalModeTakesDensitiesFromAttentionAndReportsAccuracy) {
  const auto dir = scratch_dir("serve_functional");
  const std::string base = "serve --soc snapdragon-8gen3 --model qwen2-0.5b --hours 2 --memory-budget 160MiB --set llms.max_context=512 --policy llms --contexts 2";
  const std::string args = base + " --mode functional --json ";
  ASSERT_EQ(run_socsim(args + (dir / "a.json").string()).exit_code, 0);
  ASSERT_EQ(run_socsim(args + (dir / "b.json").string()).exit_code, 0);
  EXPECT_EQ(read_file(dir / "a.json"), read_file(dir / "b.json"));
  const auto f = nlohmann::json::parse(read_file(dir / "a.json"));
  EXPECT_EQ(f["mode"], "functional");
  EXPECT_EQ(f["density_source"], "attention-scores");
  EXPECT_EQ(f["densities_used"], true);
  EXPECT_EQ(f["compression_accuracy"]["calls_measured"], f["calls"]);
  EXPECT_GT(f["compression_accuracy"]["mean_rel_error_vs_int8"].get<double>(), 0.0);
  EXPECT_EQ(f["data_driven"]["quantities"], "llms chunk densities");
  const auto t = run_socsim_json(base, "serve_timing");
  EXPECT_FALSE(t.contains("data_driven"));
  EXPECT_EQ(t["mode"], "timing");
  EXPECT_EQ(t["density_source"], "synthetic-lognormal");
  EXPECT_FALSE(t.contains("compression_accuracy"));
}

TEST(CliServe, BadInputExits2NamingTheKey) {
  const auto dir = scratch_dir("serve_bad");
  const std::string out = " --json " + (dir / "out.json").string();
  struct Case {
    std::string args, needle;
  };
  const Case cases[] = {
      {kBase + " --policy lru --contexts 2", "--policy"},
      {kBase + " --policy llms", "--contexts"},
      {kBase + " --policy llms --contexts 2 --pattern zipf", "--pattern"},
      {kBase + " --policy llms --contexts 2 --rate fast", "--rate"},
      {kBase + " --policy llms --contexts 2 --set llms.chunk_token=8", "did you mean 'chunk_tokens'"},
      {kBase + " --policy llms --contexts 2 --set llms.global_ratio=0.1", "llms.global_ratio"},
      {kBase + " --policy llms --contexts 2 --set llms.recompute_system=tpu", "llms.recompute_system"},
      {kBase + " --policy llms --contexts 2 --mode exact", "--mode"},
      {kBase + " --policy llms --contexts 2 --set llms.io_granularity=page", "llms.io_granularity"},
      {kBase + " --policy llms --contexts 2 --set llms.io_tensor_cycles=-1", "llms.io_tensor_cycles"},
      {kBase + " --policy llms --contexts 2 --set llms.io_upload=maybe", "llms.io_upload"},
      {kBase + " --policy llms --contexts 2 --set llms.chunk_tokens=2048", "llms.chunk_tokens: 2048 tokens exceed the window of 1024 tokens"},
      {kTraceBase + " --policy llms --contexts 2 --trace /tmp", "--trace: is a folder"},
      {"serve --soc snapdragon-8gen3 --model qwen2-0.5b --policy llms --contexts 2 --memory-budget 1000GiB", "--memory-budget: exceeds the device's memory"},
      {"serve --soc snapdragon-8gen3 --model llama-2-7b --policy vllm-s --contexts 2 --memory-budget 1GiB", "--memory-budget"},
  };
  for (const auto& c : cases) {
    const auto r = run_socsim(c.args + out);
    EXPECT_EQ(r.exit_code, 2) << c.args;
    EXPECT_NE(r.err.find(c.needle), std::string::npos) << c.args << "\n" << r.err;
    EXPECT_FALSE(std::filesystem::exists(dir / "out.json")) << c.args;
  }
}

// A chunk as large as the window: the recompute profile stays within the window (it used to
// prefill 8 chunks, 32768 tokens, and exit 2 naming --model and a KV cache nobody asked for).
TEST(CliServe, ChunksAsLargeAsTheWindowServe) {
  const auto j = run_socsim_json("serve --soc jetson-orin-nx --model llama-2-7b --policy llms --contexts 2 --hours 1 --set llms.chunk_tokens=4096",
                                 "serve_chunk_window");
  EXPECT_EQ(j["options"]["chunk_tokens"], 4096);
  EXPECT_GT(j["profiled_costs"]["recompute_one_chunk_ms"].get<double>(), 0);
  EXPECT_EQ(j["profiled_costs"]["recompute_profiled_tokens"], 4096);  // the window
  EXPECT_TRUE(j["profiled_costs"]["recompute_profile_stopped_by"].is_null());
  // A one-token window and chunk: the line still has two points.
  const auto r = run_socsim(kBase + " --policy llms --contexts 2 --set llms.max_context=1 --set llms.chunk_tokens=1");
  EXPECT_EQ(r.exit_code, 0) << r.err;
}

// The recompute profile runs prefills to the window; one the device cannot hold (Llama-3.2-3B's FP16
// KV at 65,536 tokens on the Orin's 8 GiB) ends the profile there, and the summary says so.
TEST(CliServe, ARecomputeProfileLongerThanTheDeviceHoldsStopsAndSaysSo) {
  const auto dir = scratch_dir("serve_profile_stop");
  // 24 hours: the contexts fill the 65536-token window (the profile goes no further than they reach).
  const auto r = run_socsim("serve --soc jetson-orin-nx --model llama-3.2-3b --policy llms --contexts 2 --hours 24 --memory-budget 4GiB "
                            "--set llms.max_context=65536 --json " + (dir / "o.json").string());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("the recompute cost was profiled to 32768 tokens"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("it stopped at a prefill of 65536 tokens"), std::string::npos) << r.out;
  const auto j = nlohmann::json::parse(std::ifstream(dir / "o.json"));
  EXPECT_EQ(j["profiled_costs"]["recompute_profiled_tokens"], 32768);
  EXPECT_NE(j["profiled_costs"]["recompute_profile_stopped_by"].get<std::string>().find("dram.capacity"), std::string::npos);
  EXPECT_GT(j["profiled_costs"]["recompute_chunk_at_window_ms"].get<double>(), j["profiled_costs"]["recompute_one_chunk_ms"].get<double>());
}

// A short trace on a long window: the recompute cost is profiled to the longest context the
// served traces reach (the max-active-contexts search's traces included), not to the window (a
// 128k window's prefill was most of a minute before the first call). A trace file reaching 600
// tokens profiles to 600.
TEST(CliServe, TheRecomputeProfileStopsAtTheLongestContextTheTracesReach) {
  const auto dir = scratch_dir("serve_profile_reach");
  const auto j = run_socsim_json("serve --soc snapdragon-8gen3 --model llama-3.2-1b --policy llms --contexts 2 --hours 1", "serve_profile_reach_json");
  const auto& c = j["profiled_costs"];
  const auto longest = c["longest_context_tokens"].get<std::uint64_t>();
  EXPECT_GT(longest, 0u);
  EXPECT_LT(longest, j["max_context_tokens"].get<std::uint64_t>());
  // The window's ladder (chunks doubling) cut at its first length past the longest context.
  const auto profiled = c["recompute_profiled_tokens"].get<double>();
  EXPECT_GE(profiled, static_cast<double>(longest));
  EXPECT_LT(profiled, 2.0 * static_cast<double>(longest));
  EXPECT_TRUE(c["recompute_profile_stopped_by"].is_null());
  EXPECT_TRUE(c["recompute_chunk_at_window_ms"].is_null());  // no context reaches the window
  EXPECT_GT(c["recompute_per_mpair_ms"].get<double>(), 0.0);
  // Contexts of 33 and 16 tokens against the same with a context of 8000: the profile runs at
  // least to 4096 tokens (kPairFitTokens; one chunk is never extrapolated from token-sized
  // prefills), the first trace's further, and both price a chunk and the attention per pair the
  // same (fitted at the top of the cut profile, llm-npu's per pair was 1071 ms per million pairs
  // from the short trace and 446 from the long one; before that fix 16, 32 and 33 tokens gave 850x).
  std::ofstream(dir / "t.txt") << "0 0 11\n10 1 16\n20 0 11\n30 0 11\n";
  std::ofstream(dir / "u.txt") << "0 0 11\n10 1 8000\n20 0 11\n30 0 11\n";
  const std::string base =
      "serve --soc snapdragon-8gen3 --model llama-3.2-1b --policy llms --contexts 2 --set llms.max_context=8192 "
      "--set llms.recompute_system=llm-npu --trace ";
  const auto t = run_socsim_json(base + (dir / "t.txt").string(), "serve_profile_reach_short");
  const auto u = run_socsim_json(base + (dir / "u.txt").string(), "serve_profile_reach_long");
  EXPECT_EQ(t["profiled_costs"]["longest_context_tokens"], 33);
  EXPECT_EQ(u["profiled_costs"]["longest_context_tokens"], 8000);
  EXPECT_EQ(t["profiled_costs"]["recompute_profiled_tokens"].get<double>(), 4096.0);
  EXPECT_EQ(u["profiled_costs"]["recompute_profiled_tokens"].get<double>(), 8192.0);
  EXPECT_GT(t["profiled_costs"]["recompute_per_mpair_ms"].get<double>(), 0.0);
  EXPECT_EQ(t["profiled_costs"]["recompute_per_mpair_ms"], u["profiled_costs"]["recompute_per_mpair_ms"]);
  EXPECT_EQ(t["profiled_costs"]["recompute_one_chunk_ms"], u["profiled_costs"]["recompute_one_chunk_ms"]);
  EXPECT_TRUE(t["profiled_costs"]["recompute_chunk_at_window_ms"].is_null());
  EXPECT_FALSE(u["profiled_costs"]["recompute_chunk_at_window_ms"].is_null());
  // Chunks of 2048 tokens: the fit reaches 8 chunks (under 4096 tokens no three points span 4x,
  // and the attention per pair fell to 0).
  const auto big = run_socsim_json(base + (dir / "t.txt").string() + " --set llms.chunk_tokens=2048", "serve_profile_reach_big_chunks");
  EXPECT_GT(big["profiled_costs"]["recompute_per_mpair_ms"].get<double>(), 0.0);
}

// Trace values past what a run can mean: a time beyond a year (--hours' cap) and a call's growth
// beyond 2^20 tokens, each named with its file and line.
TEST(CliServe, TraceValuesOutOfRangeNameTheLine) {
  const auto dir = scratch_dir("serve_trace_range");
  std::ofstream(dir / "late.txt") << "0 0 16\n1e300 1 16\n";
  std::ofstream(dir / "big.txt") << "0 0 100000000\n";
  auto r = run_socsim(kTraceBase + " --policy llms --contexts 2 --trace " + (dir / "late.txt").string());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("late.txt:2: trace.time_s: expected a time within a year"), std::string::npos) << r.err;
  r = run_socsim(kTraceBase + " --policy llms --contexts 2 --trace " + (dir / "big.txt").string());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("big.txt:1: trace.delta_tokens: expected an integer number of tokens in [1, 1048576]"), std::string::npos) << r.err;
}

TEST(CliServe, JetsonBoardsServeOnTheirGpuAndRefuseNpuSystems) {
  const auto j = run_socsim_json("serve --soc jetson-tx2 --model qwen2-0.5b --hours 2 --memory-budget 160MiB --set llms.max_context=1024 --policy llms --contexts 3",
                                 "serve_tx2");
  EXPECT_EQ(j["soc"], "jetson-tx2");
  const auto r = run_socsim("run --soc jetson-orin-nx --model qwen2-0.5b --system npu-only --prompt 32 --decode 1");
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("npu"), std::string::npos) << r.err;
  // As the recompute system of a service: the option is named (the SoC file was blamed).
  const auto s = run_socsim("serve --soc jetson-orin-nx --model qwen2-0.5b --policy llms --contexts 2 --hours 1 --set llms.recompute_system=llm-npu");
  EXPECT_EQ(s.exit_code, 2) << s.err;
  EXPECT_NE(s.err.find("llms.recompute_system: 'llm-npu' cannot recompute on this SoC and model"), std::string::npos) << s.err;
}

}  // namespace
}  // namespace socsim::test
