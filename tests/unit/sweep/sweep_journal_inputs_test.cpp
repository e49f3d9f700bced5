// The journal header records the fingerprint's parts (cli/sweep_fingerprint.h) so a refused resume
// names what changed; the header stays a line the reader takes, however many input files a sweep
// names, and a header torn by a kill starts afresh even when the inputs have changed since.
#include "sim/sweep/sweep_journal.h"

#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "sim/config/config_error.h"
#include "tests/support/config_error_of.h"
#include "tests/support/scratch_dir.h"

namespace socsim::sweep {
namespace {

JournalHeader header(std::uint64_t fingerprint, std::vector<std::pair<std::string, std::string>> inputs) {
  return {"inputs-test", fingerprint, "0/1", {"ttft_ms"}, "", std::move(inputs)};
}

TEST(SweepJournalInputs, ARefusedResumeNamesThePartsThatDiffer) {
  const auto dir = test::fresh_scratch_dir("journal", "inputs_differ");
  {
    SweepJournal j(dir, header(1, {{"socsim version", "0.1.0"}, {"the runs' arguments", "aa"}, {"--workload w.yaml", "bb"}}), false, 2);
    j.append({0, {1.0}, ""});
  }
  const auto e = test::config_error_of([&] { SweepJournal(dir, header(2, {{"socsim version", "0.1.0"}, {"the runs' arguments", "aa"}, {"--soc s.yaml", "cc"}}), true, 2); });
  EXPECT_NE(e.find("journal.jsonl:1: inputs: the journal was written from other inputs: --soc s.yaml is new; --workload w.yaml is no longer used"),
            std::string::npos)
      << e;
}

TEST(SweepJournalInputs, ThousandsOfInputFilesKeepTheHeaderALineTheReaderTakes) {
  // 9,000 setting files: their parts alone are past 1 MiB, the longest line a journal may hold.
  std::vector<std::pair<std::string, std::string>> many;
  for (int i = 0; i < 9000; ++i) many.emplace_back("the file /a/long/folder/name/importance-" + std::to_string(i) + ".json (a --set value)", "0123456789abcdef");
  const auto dir = test::fresh_scratch_dir("journal", "inputs_many");
  {
    SweepJournal j(dir, header(7, many), false, 2);
    j.append({0, {1.0}, ""});
  }
  SweepJournal again(dir, header(7, many), true, 2);
  EXPECT_TRUE(again.resumed());
  EXPECT_EQ(again.finished().size(), 1u);
  // Without the parts, a refusal gives the fingerprints and says why it cannot name the change.
  const auto e = test::config_error_of([&] { SweepJournal(dir, header(8, many), true, 2); });
  EXPECT_NE(e.find("this journal does not record which"), std::string::npos) << e;
}

TEST(SweepJournalInputs, AHeaderTornByAKillStartsAfreshThoughTheInputsChanged) {
  const auto dir = test::fresh_scratch_dir("journal", "inputs_torn");
  std::ofstream(dir / SweepJournal::kFileName) << R"({"socsim_sweep_journal":1,"sweep":"inputs-test","fingerprint":"ffffffffffffff)";
  SweepJournal j(dir, header(3, {{"the runs' arguments", "dd"}}), true, 2);
  EXPECT_FALSE(j.resumed());
  EXPECT_TRUE(j.finished().empty());
}

}  // namespace
}  // namespace socsim::sweep
