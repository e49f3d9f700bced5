// Disk failures during output, injected with LD_PRELOAD (tests/support/disk_fault_shim.cpp): a
// disk that fills up in the middle of a file, an fsync that fails, a sweep journal that cannot be
// flushed. Each exits 2 naming the file and the error, leaves no temporary behind, and keeps the
// earlier outputs byte for byte (#20: outputs are written atomically).
#include <fstream>

#include "tests/cli/cli_test_util.h"

namespace socsim::test {
namespace {

const std::string kRun = "run --soc snapdragon-8gen3 --model qwen2-0.5b --system cpu-only --prompt 8 --decode 1";

// The child's environment: the shim preloaded (a sanitized binary is told not to insist on its
// runtime coming first) and one fault switched on.
std::string fault(const std::string& var) {
  return std::string("LD_PRELOAD='") + SOCSIM_DISK_FAULT_SHIM + "' ASAN_OPTIONS=\"$ASAN_OPTIONS:verify_asan_link_order=0\" " + var + "=1";
}

void expect_no_temporaries(const std::filesystem::path& dir) {
  for (const auto& e : std::filesystem::recursive_directory_iterator(dir)) {
    EXPECT_EQ(e.path().filename().string().find(".tmp."), std::string::npos) << e.path();
  }
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
  std::ofstream(dir / "s.yaml") << "name: s\n"
                                   "base: {soc: snapdragon-8gen3, model: qwen2-0.5b, system: cpu-only, prompt: 8, decode: 1}\n"
                                   "grid:\n"
                                   "  dram.peak: [60GB/s, 68GB/s]\n"
                                   "metrics: [ttft_ms]\n";
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

}  // namespace
}  // namespace socsim::test
