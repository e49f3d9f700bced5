// A journal socsim wrote holds at most one line for a finished run (a resumed sweep runs again only
// the failed ones) and the format version it reads: an edited journal is refused at its line, not
// resolved by taking the last word.
#include <gtest/gtest.h>

#include <fstream>
#include <functional>
#include <iterator>
#include <string>

#include "sim/config/config_error.h"
#include "sim/sweep/sweep_journal.h"
#include "tests/support/config_error_of.h"
#include "tests/support/scratch_dir.h"

namespace socsim::sweep {
namespace {

JournalHeader header() { return {"edits-test", 5, "0/1", {"ttft_ms"}, "", {}}; }

TEST(SweepJournalEdits, AFailedRunTriedAgainKeepsItsLaterResult) {
  const auto dir = test::fresh_scratch_dir("journal", "edits_retry");
  {
    SweepJournal j(dir, header(), false, 2);
    j.append({0, {}, "a failure"});
    j.append({0, {2.5}, ""});
  }
  SweepJournal again(dir, header(), true, 2);
  ASSERT_EQ(again.finished().size(), 1u);
  EXPECT_TRUE(again.finished().front().error.empty());
  EXPECT_EQ(again.finished().front().metrics.front(), 2.5);
}

TEST(SweepJournalEdits, AFinishedRunRecordedAgainIsRefused) {
  const auto dir = test::fresh_scratch_dir("journal", "edits_twice");
  {
    SweepJournal j(dir, header(), false, 2);
    j.append({1, {53.58}, ""});
  }
  std::ofstream(dir / SweepJournal::kFileName, std::ios::app) << R"({"run":1,"metrics":[1.0]})" << "\n";
  const auto e = test::config_error_of([&] { SweepJournal(dir, header(), true, 2); });
  EXPECT_NE(e.find("journal.jsonl:3: run: run 1 finished at line 2 and is recorded again"), std::string::npos) << e;
}

TEST(SweepJournalEdits, AMetricThatIsNoFiniteNumberIsRefused) {
  for (const char* value : {"\"12\"", "true"}) {
    const auto dir = test::fresh_scratch_dir("journal", "edits_metric");
    { SweepJournal j(dir, header(), false, 2); }
    std::ofstream(dir / SweepJournal::kFileName, std::ios::app) << R"({"run":0,"metrics":[)" << value << "]}\n";
    const auto e = test::config_error_of([&] { SweepJournal(dir, header(), true, 2); });
    EXPECT_NE(e.find("journal.jsonl:2: metrics: expected numbers or null"), std::string::npos) << value << ": " << e;
  }
}

TEST(SweepJournalEdits, AnotherFormatVersionIsRefused) {
  const auto dir = test::fresh_scratch_dir("journal", "edits_version");
  {
    SweepJournal j(dir, header(), false, 2);
    j.append({0, {1.0}, ""});
  }
  std::string text;
  {
    std::ifstream in(dir / SweepJournal::kFileName);
    text.assign(std::istreambuf_iterator<char>(in), {});
  }
  const std::string from = R"({"socsim_sweep_journal":1,)";
  ASSERT_EQ(text.rfind(from, 0), 0u) << text;
  text.replace(0, from.size(), R"({"socsim_sweep_journal":2,)");
  std::ofstream(dir / SweepJournal::kFileName, std::ios::trunc) << text;
  const auto e = test::config_error_of([&] { SweepJournal(dir, header(), true, 2); });
  EXPECT_NE(e.find("journal.jsonl:1: socsim_sweep_journal: a journal of format 2, this socsim reads format 1"), std::string::npos) << e;
}

}  // namespace
}  // namespace socsim::sweep
