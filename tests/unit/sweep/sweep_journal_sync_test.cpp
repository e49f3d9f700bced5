// The journal goes to disk at most once per sync interval (a synchronous flush per run would bind
// a sweep of short runs on a network file system to its round trips), and every line is written
// at once, so what a run appended is read back on resume whether or not it was synced.
#include "sim/sweep/sweep_journal.h"

#include <gtest/gtest.h>

#include <chrono>

#include "tests/support/scratch_dir.h"

namespace socsim::sweep {
namespace {

const JournalHeader kHeader{"sync-test", 42, "1/1", {"ttft_ms"}};

void append_runs(SweepJournal& j, std::size_t n) {
  for (std::size_t run = 0; run < n; ++run) j.append({run, {1.0 + static_cast<double>(run)}, ""});
}

TEST(SweepJournalSync, ALongIntervalSyncsOnlyTheHeader) {
  const auto dir = test::fresh_scratch_dir("journal", "sync_hour");
  {
    SweepJournal j(dir, kHeader, false, 100, std::chrono::hours(1));
    append_runs(j, 100);
    EXPECT_EQ(j.syncs(), 1u);  // the header; the runs wait for the interval or the close
  }
  // Unsynced or not, every line was written: a resume finds all 100 runs.
  SweepJournal again(dir, kHeader, true, 100);
  EXPECT_TRUE(again.resumed());
  EXPECT_EQ(again.finished().size(), 100u);
  EXPECT_EQ(again.finished().back().metrics.front(), 100.0);
}

TEST(SweepJournalSync, AZeroIntervalSyncsEveryRun) {
  const auto dir = test::fresh_scratch_dir("journal", "sync_zero");
  SweepJournal j(dir, kHeader, false, 10, std::chrono::seconds(0));
  append_runs(j, 10);
  EXPECT_EQ(j.syncs(), 11u);
}

}  // namespace
}  // namespace socsim::sweep
