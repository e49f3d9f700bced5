#include <gtest/gtest.h>

#include <unistd.h>

#include <fstream>

#include <nlohmann/json.hpp>

#include "cli_test_util.h"

namespace socsim::test {
namespace {

const std::string kRun = "run --soc snapdragon-8gen3 --model qwen2-0.5b --system cpu-only --prompt 64 --decode 2";

TEST(CliRun, WritesContractKeysItCanCompute) {
  const auto dir = scratch_dir("run_ok");
  auto r = run_socsim(kRun + " --report-dir '" + dir.string() + "/rep' --json '" + dir.string() + "/r.json'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("qwen2-0.5b on snapdragon-8gen3"), std::string::npos);
  for (const char* f : {"rep/report.json", "rep/trace.json", "rep/report.html", "r.json"}) {
    EXPECT_TRUE(std::filesystem::exists(dir / f)) << f;
  }
  const auto j = nlohmann::json::parse(read_file(dir / "r.json"));
  for (const char* k : {"soc", "model", "system", "mode", "prompt_tokens", "decode_tokens", "batch", "ttft_ms",
                        "prefill_ms", "prefill_tokens_per_s", "decode_ms_per_token", "decode_tokens_per_s", "total_ms",
                        "energy_j", "units", "dram"}) {
    EXPECT_TRUE(j.contains(k)) << k;
  }
  for (const char* u : {"npu", "gpu", "cpu", "dram", "storage"}) {
    EXPECT_TRUE(j["units"][u].contains("busy_ms")) << u;
    EXPECT_TRUE(j["units"][u].contains("energy_j")) << u;
  }
  EXPECT_EQ(j["prompt_tokens"], 64);
  for (const char* k : {"bytes", "avg_gbps", "peak_gbps"}) EXPECT_TRUE(j["dram"].contains(k)) << k;
  // Timing mode computes no accuracy: the key is absent, not invented.
  EXPECT_FALSE(j.contains("accuracy"));
  EXPECT_GT(j["ttft_ms"].get<double>(), 0.0);
  EXPECT_LE(j["ttft_ms"].get<double>(), j["total_ms"].get<double>());
  const auto trace = nlohmann::json::parse(read_file(dir / "rep/trace.json"));
  EXPECT_TRUE(trace.contains("traceEvents"));
}

TEST(CliRun, SameInputsGiveByteIdenticalReports) {
  const auto dir = scratch_dir("run_det");
  ASSERT_EQ(run_socsim(kRun + " --seed 7 --json '" + dir.string() + "/a.json'").exit_code, 0);
  ASSERT_EQ(run_socsim(kRun + " --seed 7 --json '" + dir.string() + "/b.json'").exit_code, 0);
  EXPECT_EQ(read_file(dir / "a.json"), read_file(dir / "b.json"));
}

TEST(CliRun, AFailedWriteLeavesEarlierOutputsWholeAndNoTemporaries) {
  // The report folder cannot be created (a name longer than the file system takes: what only
  // writing tells; a parent that is a file is refused before the run), so the run's outputs fail;
  // the earlier good --json must survive byte for byte and no temporary may stay beside it.
  const auto dir = scratch_dir("run_atomic");
  ASSERT_EQ(run_socsim(kRun + " --json '" + (dir / "r.json").string() + "'").exit_code, 0);
  const std::string good = read_file(dir / "r.json");
  ASSERT_FALSE(good.empty());
  const auto r = run_socsim(kRun + " --seed 9 --json '" + (dir / "r.json").string() + "' --report-dir '" + (dir / std::string(300, 'x') / "rep").string() + "'");
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("cannot write output file (File name too long)"), std::string::npos) << r.err;
  // A report folder under a file, or a --json that is a folder, is refused before the run.
  std::ofstream(dir / "blocker") << "a file, not a folder";
  const auto early = run_socsim(kRun + " --json '" + (dir / "r.json").string() + "' --report-dir '" + (dir / "blocker" / "rep").string() + "'");
  EXPECT_EQ(early.exit_code, 2) << early.err;
  EXPECT_NE(early.err.find("--report-dir: '" + (dir / "blocker" / "rep").string() + "' lies under '" + (dir / "blocker").string() + "', which is a file"),
            std::string::npos) << early.err;
  const auto folder = run_socsim(kRun + " --json '" + dir.string() + "'");
  EXPECT_EQ(folder.exit_code, 2) << folder.err;
  EXPECT_NE(folder.err.find("--json: '" + dir.string() + "' is a folder, expected a file path"), std::string::npos) << folder.err;
  EXPECT_EQ(read_file(dir / "r.json"), good);
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    EXPECT_EQ(e.path().filename().string().find(".tmp."), std::string::npos) << e.path();
  }
  // A successful run replaces the file whole; /dev/null (not a regular file) is written in place.
  ASSERT_EQ(run_socsim(kRun + " --seed 9 --json '" + (dir / "r.json").string() + "'").exit_code, 0);
  EXPECT_NE(read_file(dir / "r.json"), good);
  EXPECT_EQ(run_socsim(kRun + " --json /dev/null").exit_code, 0);
  EXPECT_TRUE(std::filesystem::is_character_file("/dev/null"));
}

// A write that a kill cut short left a full-size temporary beside its target: the next write of
// that target removes it (its writer's pid no longer runs); a live writer's stays.
TEST(CliRun, AnOrphanedTemporaryIsRemovedByTheNextWrite) {
  const auto dir = scratch_dir("run_orphan");
  const auto orphan = dir / ".r.json.tmp.999999999.0";  // beyond any pid_max: no such process
  const auto live = dir / (".r.json.tmp." + std::to_string(::getppid()) + ".0");  // this test's parent runs
  const auto other = dir / ".q.json.tmp.999999999.0";  // another target's: not this write's
  for (const auto& f : {orphan, live, other}) std::ofstream(f) << "partial";
  ASSERT_EQ(run_socsim(kRun + " --json '" + (dir / "r.json").string() + "'").exit_code, 0);
  EXPECT_FALSE(std::filesystem::exists(orphan));
  EXPECT_TRUE(std::filesystem::exists(live));
  EXPECT_TRUE(std::filesystem::exists(other));
}

// The output check before the work follows a symbolic link as the writer does: a link into a
// folder where no file can be made is refused first; a link in such a folder to a writable place
// (`--json /dev/stdout > out.json`) is written. The probe leaves nothing behind.
TEST(CliRun, TheOutputCheckFollowsSymbolicLinksAndLeavesNoProbe) {
  const auto dir = scratch_dir("run_link");
  std::filesystem::create_directories(dir / "real");
  std::ofstream(dir / "real" / "r.json") << "old";
  std::filesystem::create_symlink(dir / "real" / "r.json", dir / "link.json");
  std::filesystem::create_symlink("/proc/version", dir / "proc.json");  // a file beside which nothing can be made
  std::ofstream(dir / "real" / ".probe.tmp.999999999.0") << "";  // a killed run's probe: removed by the next check
  ASSERT_EQ(run_socsim(kRun + " --json '" + (dir / "link.json").string() + "'").exit_code, 0);
  EXPECT_TRUE(std::filesystem::is_symlink(dir / "link.json"));
  std::ifstream in(dir / "real" / "r.json");
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_NE(text.find("ttft_ms"), std::string::npos);
  const auto r = run_socsim(kRun + " --json '" + (dir / "proc.json").string() + "'");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("proc.json' cannot be written: no file can be created in '/proc'"), std::string::npos) << r.err;
  for (const auto& d : {dir, dir / "real"}) {
    for (const auto& e : std::filesystem::directory_iterator(d)) {
      EXPECT_EQ(e.path().filename().string().find(".probe"), std::string::npos) << e.path();
    }
  }
}

// A link whose target does not exist yet is followed as a shell's `>` follows it: the target is
// made and the link kept (a relative target is from the link's folder); a loop of links is
// refused before the work, naming the option.
TEST(CliRun, ADanglingLinkIsWrittenThroughAndALoopIsRefused) {
  const auto dir = scratch_dir("run_dangling_link");
  std::filesystem::create_symlink("target.json", dir / "link.json");
  ASSERT_EQ(run_socsim(kRun + " --json '" + (dir / "link.json").string() + "'").exit_code, 0);
  EXPECT_TRUE(std::filesystem::is_symlink(dir / "link.json"));
  EXPECT_NE(read_file(dir / "target.json").find("ttft_ms"), std::string::npos);
  std::filesystem::create_symlink("l2", dir / "l1");
  std::filesystem::create_symlink("l1", dir / "l2");
  const auto r = run_socsim(kRun + " --json '" + (dir / "l1").string() + "'");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--json: '" + (dir / "l1").string() + "' is a loop (or a chain of more than 40) of symbolic links"), std::string::npos) << r.err;
  EXPECT_TRUE(std::filesystem::is_symlink(dir / "l1"));
}

TEST(CliRun, BadSetValueExits2NamingTheKeyAndWritesNothing) {
  const auto dir = scratch_dir("run_bad_set");
  auto r = run_socsim("run --soc soc_configs/snapdragon-8gen3.yaml --model qwen2-0.5b --system cpu-only --prompt 8 --decode 1 "
                      "--set dram.peak=abc --json '" + dir.string() + "/r.json' --report-dir '" + dir.string() + "/rep'");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--set: dram.peak: expected a bandwidth"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(dir / "r.json"));
  EXPECT_FALSE(std::filesystem::exists(dir / "rep"));
}

TEST(CliRun, UnknownSetKeySuggestsTheRightOne) {
  auto r = run_socsim(kRun + " --set dram.peek=60GB/s");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("dram.peek"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("did you mean 'peak'"), std::string::npos) << r.err;
}

TEST(CliRun, YamlSyntaxErrorNamesFileAndLine) {
  const auto dir = scratch_dir("run_yaml");
  {
    std::ofstream f(dir / "broken.yaml");
    f << "include: " << SOCSIM_SOURCE_DIR << "/soc_configs/snapdragon-8gen3.yaml\n"
      << "dram:\n  peak: 68 GB/s: 1\n";
  }
  auto r = run_socsim("run --soc '" + (dir / "broken.yaml").string() + "' --model qwen2-0.5b --system cpu-only --prompt 8 --decode 1");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("broken.yaml:"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("broken.yaml:3:"), std::string::npos) << r.err;  // "a: b: c" is illegal on line 3
}

TEST(CliRun, UnknownIdsListKnownOnes) {
  auto r = run_socsim("run --soc snapdragon-8gn3 --model qwen2-0.5b --system cpu-only --prompt 8 --decode 1");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("did you mean 'snapdragon-8gen3'"), std::string::npos) << r.err;
  r = run_socsim("run --soc snapdragon-8gen3 --model qwen2-0.5b --system gpu-onyl --prompt 8 --decode 1");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--system"), std::string::npos);
  r = run_socsim("run --soc snapdragon-8gen3 --model qwen9 --system cpu-only --prompt 8 --decode 1");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("Known:"), std::string::npos);
}

TEST(CliRun, SemanticChecksOnLengths) {
  auto r = run_socsim("run --soc snapdragon-8gen3 --model qwen2-0.5b --system cpu-only --prompt 0 --decode 1");
  EXPECT_EQ(r.exit_code, 2);
  r = run_socsim("run --soc snapdragon-8gen3 --model qwen2-0.5b --system cpu-only --prompt 8 --decode 1 --batch 0");
  EXPECT_EQ(r.exit_code, 2);
  r = run_socsim("run --soc snapdragon-8gen3 --model phi-2 --system cpu-only --prompt 4000 --decode 1");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("context"), std::string::npos);
  r = run_socsim("run --soc snapdragon-8gen3 --model qwen2-0.5b --system cpu-only --prompt 8 --decode 1 --set dram.peak=-5GB/s");
  EXPECT_EQ(r.exit_code, 2);
}

// The model's trained window can be stretched for a what-if (the shadowAttn paper runs PhoneLM,
// 2048 tokens, on 4096-token prompts); it shows in the report's resolved configuration, and a bad
// value or an unknown model key is bad input.
TEST(CliRun, ModelWindowStretchedOnRequest) {
  const std::string base = "run --soc snapdragon-8gen3 --model phonelm-0.5b --system cpu-only --prompt 2100 --decode 1";
  auto r = run_socsim(base);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--prompt: prompt + decode = 2101 tokens exceeds phonelm-0.5b's context of 2048"), std::string::npos) << r.err;
  // A prompt that fits, with a decode that does not, names --decode.
  r = run_socsim("run --soc snapdragon-8gen3 --model phonelm-0.5b --system cpu-only --prompt 2000 --decode 100");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--decode: prompt + decode = 2100 tokens exceeds phonelm-0.5b's context of 2048"), std::string::npos) << r.err;
  const auto j = run_socsim_json(base + " --set model.max_position_embeddings=4096", "model_window");
  EXPECT_EQ(j["prompt_tokens"], 2100);
  EXPECT_GT(j["prefill_ms"].get<double>(), 0);
  r = run_socsim(base + " --set model.max_position_embeddings=2101");  // prompt + decode = 2101 fits exactly
  EXPECT_EQ(r.exit_code, 0) << r.err;
  r = run_socsim(base + " --set model.max_position_embeddings=0");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("model.max_position_embeddings"), std::string::npos) << r.err;
  r = run_socsim(base + " --set model.max_context=4096");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("max_context"), std::string::npos) << r.err;
}

// A workload whose lengths can pass the model's window names the file's line of the range to
// shorten (it said "command line: --workload: ...", no line).
TEST(CliRun, WorkloadPastTheWindowNamesItsLine) {
  const auto dir = scratch_dir("run_workload_window");
  std::ofstream(dir / "long.yaml") << "prompt:\n  uniform: [100, 2000]\ndecode: 100\n";
  std::ofstream(dir / "longdecode.yaml") << "prompt: 64\ndecode:\n  uniform: [1, 3000]\n";
  const std::string base = "run --soc snapdragon-8gen3 --model phonelm-0.5b --system cpu-only --workload ";
  auto r = run_socsim(base + "'" + (dir / "long.yaml").string() + "'");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("long.yaml:1: prompt: workload 'long' allows prompt + decode up to 2000 + 100 tokens, beyond "
                       "phonelm-0.5b's context of 2048 (--model phonelm-0.5b)"),
            std::string::npos)
      << r.err;
  r = run_socsim(base + "'" + (dir / "longdecode.yaml").string() + "'");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("longdecode.yaml:2: decode: workload 'longdecode' allows"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace socsim::test
