// Disk failures, injected with LD_PRELOAD (tests/support/disk_fault_shim.cpp): a disk that fills
// up in the middle of a file, an fsync that fails, a sweep journal that cannot be flushed, inputs
// that cannot be read (root reads files whatever their permissions, so only a shim can refuse
// one). Each exits 2 naming the file, the option and the error; output failures leave no temporary
// behind and keep the earlier outputs byte for byte (#20: outputs are written atomically).
#include <fstream>

#include "tests/cli/cli_test_util.h"

namespace socsim::test {
namespace {

const std::string kRun = "run --soc snapdragon-8gen3 --model qwen2-0.5b --system cpu-only --prompt 8 --decode 1";

// The child's environment: the shim preloaded (a sanitized binary is told not to insist on its
// runtime coming first) and `assignments` (VAR=value ...).
std::string preload(const std::string& assignments) {
  return std::string("LD_PRELOAD='") + SOCSIM_DISK_FAULT_SHIM + "' ASAN_OPTIONS=\"$ASAN_OPTIONS:verify_asan_link_order=0\" " + assignments;
}
// One fault switched on.
std::string fault(const std::string& var) { return preload(var + "=1"); }

void expect_no_temporaries(const std::filesystem::path& dir) {
  for (const auto& e : std::filesystem::recursive_directory_iterator(dir)) {
    EXPECT_EQ(e.path().filename().string().find(".tmp."), std::string::npos) << e.path();
  }
}

// dir/s.yaml: a sweep of cpu-only runs, one per dram.peak of `peaks` ("60GB/s, 68GB/s").
void write_sweep_spec(const std::filesystem::path& dir, const std::string& peaks) {
  std::ofstream(dir / "s.yaml") << "name: s\n"
                                   "base: {soc: snapdragon-8gen3, model: qwen2-0.5b, system: cpu-only, prompt: 8, decode: 1}\n"
                                   "grid:\n"
                                   "  dram.peak: [" << peaks << "]\n"
                                   "metrics: [ttft_ms]\n";
}

// Runs once without faults, then again (another seed, other contents) with `var` set: the second
// must fail with `why` and leave the first run's files as they were.
void expect_outputs_survive(const std::string& name, const std::string& var, const std::string& why) {
  const auto dir = scratch_dir(name);
  const std::string outputs = " --json '" + (dir / "r.json").string() + "' --report-dir '" + (dir / "rep").string() + "'";
  ASSERT_EQ(run_socsim(kRun + outputs).exit_code, 0);
  const std::string json = read_file(dir / "r.json"), report = read_file(dir / "rep" / "report.json");
  ASSERT_FALSE(json.empty());
  ASSERT_FALSE(report.empty());
  const auto r = run_socsim(kRun + " --seed 9" + outputs, SOCSIM_SOURCE_DIR, fault(var));
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("cannot write output file (" + why + ")"), std::string::npos) << r.err;
  EXPECT_EQ(read_file(dir / "r.json"), json);
  EXPECT_EQ(read_file(dir / "rep" / "report.json"), report);
  expect_no_temporaries(dir);
  // The shim is inert without its variable: the same run then replaces the files whole.
  ASSERT_EQ(run_socsim(kRun + " --seed 9" + outputs, SOCSIM_SOURCE_DIR, fault("SOCSIM_FAULT_NONE")).exit_code, 0);
  EXPECT_NE(read_file(dir / "r.json"), json);
}

TEST(CliDiskFault, AFullDiskMidFileKeepsTheEarlierOutputs) {
  expect_outputs_survive("disk_full", "SOCSIM_FAULT_WRITE_ENOSPC", "No space left on device");
}

TEST(CliDiskFault, AFailingFsyncKeepsTheEarlierOutputs) {
  expect_outputs_survive("disk_fsync", "SOCSIM_FAULT_FSYNC", "Input/output error");
}

// The journal is the sweep's record of finished work: when it cannot be forced to disk the sweep
// stops at once, naming it, rather than run on with work it could lose.
TEST(CliDiskFault, AJournalThatCannotBeSyncedStopsTheSweep) {
  const auto dir = scratch_dir("disk_journal");
  write_sweep_spec(dir, "60GB/s, 68GB/s");
  const auto out = dir / "o";
  const auto r = run_socsim("sweep --spec '" + (dir / "s.yaml").string() + "' --out '" + out.string() + "'", SOCSIM_SOURCE_DIR,
                            fault("SOCSIM_FAULT_FDATASYNC"));
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("journal.jsonl"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("Input/output error"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(out / "results.json"));
  expect_no_temporaries(dir);
  // The journal held no finished run: it is gone, and the same sweep then runs without --resume.
  EXPECT_FALSE(std::filesystem::exists(out / "journal.jsonl"));
  const auto again = run_socsim("sweep --spec '" + (dir / "s.yaml").string() + "' --out '" + out.string() + "'");
  EXPECT_EQ(again.exit_code, 0) << again.err;
  EXPECT_TRUE(std::filesystem::exists(out / "results.json"));
}

// A sweep whose per-run reports would fill the disk (a trace of up to ~100 MB each) writes none
// past the free space it leaves, stops starting runs and says how to go on; --resume then
// finishes the sweep once there is room.
TEST(CliDiskFault, ASweepStopsBeforeItsReportsFillTheDisk) {
  const auto dir = scratch_dir("disk_sweep_reports");
  write_sweep_spec(dir, "60GB/s, 64GB/s, 68GB/s");
  const auto out = dir / "o";
  const std::string sweep = "sweep --jobs 1 --reports --spec '" + (dir / "s.yaml").string() + "' --out '" + out.string() + "'";
  // 20,000 bytes more than the 64 MiB that must stay free (16 KiB in whole blocks): less than
  // this run's reports take (its report.html alone is about 40 KB).
  const auto r = run_socsim(sweep, SOCSIM_SOURCE_DIR, preload("SOCSIM_FAULT_FREE_BYTES=67128864"));
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_NE(r.err.find("the disk is too full for more reports"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("--reports: not written: this run's reports take"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("MB free (a sweep leaves 64 MiB free)"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("1 of 3 runs simulated now (1 failed)"), std::string::npos) << r.err;  // no run started after it
  EXPECT_FALSE(std::filesystem::exists(out / "results.json"));
  EXPECT_FALSE(std::filesystem::exists(out / "runs" / "0" / "trace.json"));
  EXPECT_TRUE(std::filesystem::exists(out / "journal.jsonl"));
  expect_no_temporaries(dir);
  // With a GiB to spare they are written (the shim still fakes the free space).
  const auto again = run_socsim(sweep + " --resume", SOCSIM_SOURCE_DIR, preload("SOCSIM_FAULT_FREE_BYTES=1140850688"));
  EXPECT_EQ(again.exit_code, 0) << again.err;
  for (const char* run : {"0", "1", "2"}) EXPECT_TRUE(std::filesystem::exists(out / "runs" / run / "trace.json")) << run;
}

// An input that cannot be opened names the file, the option it came from and the reason, and
// writes nothing: a --set file of a run, the same file as a sweep's setting, a --model file and a
// serve --trace file.
TEST(CliDiskFault, UnreadableInputsNameTheFileTheOptionAndTheReason) {
  const auto dir = scratch_dir("disk_unreadable");
  const std::string importance = "models/shadowattn/qwen2-0.5b.importance.json";
  const auto json = " --json '" + (dir / "r.json").string() + "'";
  auto r = run_socsim("run --soc snapdragon-8gen3 --model qwen2-0.5b --system shadowattn --prompt 64 --decode 1 --set shadowattn.importance_file=" +
                          importance + json,
                      SOCSIM_SOURCE_DIR, preload("SOCSIM_FAULT_EACCES=qwen2-0.5b.importance"));
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find(importance + ": shadowattn.importance_file: cannot open the file (Permission denied)"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(dir / "r.json"));
  std::ofstream(dir / "s.yaml") << "name: s\n"
                                   "base: {soc: snapdragon-8gen3, model: qwen2-0.5b, system: shadowattn, prompt: 64, decode: 1,\n"
                                   "       set: {shadowattn.importance_file: '" << std::string(SOCSIM_SOURCE_DIR) << "/" << importance << "'}}\n"
                                   "grid:\n"
                                   "  dram.peak: [60GB/s, 68GB/s]\n"
                                   "metrics: [ttft_ms]\n";
  r = run_socsim("sweep --spec '" + (dir / "s.yaml").string() + "' --out '" + (dir / "o").string() + "'", SOCSIM_SOURCE_DIR,
                 preload("SOCSIM_FAULT_EACCES=qwen2-0.5b.importance"));
  EXPECT_EQ(r.exit_code, 2) << r.err;
  // The spec's line and key, the run, the file and the reason.
  EXPECT_NE(r.err.find("s.yaml:3: base.shadowattn.importance_file: run 0"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("cannot open the file (Permission denied)"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(dir / "o" / "results.json"));
  r = run_socsim("run --soc snapdragon-8gen3 --model models/qwen2-0.5b.json --system cpu-only --prompt 8 --decode 1" + json, SOCSIM_SOURCE_DIR,
                 preload("SOCSIM_FAULT_EACCES=qwen2-0.5b.json"));
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("qwen2-0.5b.json: cannot open file (Permission denied)"), std::string::npos) << r.err;
  std::ofstream(dir / "calls.csv") << "0 0 16\n";
  r = run_socsim("serve --soc snapdragon-8gen3 --model qwen2-0.5b --policy llms --contexts 2 --memory-budget 160MiB --set llms.max_context=1024 --trace '" +
                     (dir / "calls.csv").string() + "'" + json,
                 SOCSIM_SOURCE_DIR, preload("SOCSIM_FAULT_EACCES=calls.csv"));
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("--trace: cannot open the trace file (Permission denied)"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(dir / "r.json"));
}

}  // namespace
}  // namespace socsim::test
