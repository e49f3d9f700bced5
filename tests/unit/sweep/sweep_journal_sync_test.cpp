// The journal goes to disk at most once per sync interval (a synchronous flush per run would bind
// a sweep of short runs on a network file system to its round trips), and every line is written
// at once, so what a run appended is read back on resume whether or not it was synced.
#include "sim/sweep/sweep_journal.h"

#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "sim/config/config_error.h"
#include "tests/support/scratch_dir.h"

namespace socsim::sweep {
namespace {

const JournalHeader kHeader{"sync-test", 42, "1/1", {"ttft_ms"}, "", {}};

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

TEST(SweepJournalSync, ALineWithinTheIntervalIsSyncedWhenItEnds) {
  // The run comes right after the header's sync, so append() leaves it to the flusher, which must
  // sync it once the interval is over, without another append or a close.
  const auto dir = test::fresh_scratch_dir("journal", "sync_flusher");
  SweepJournal j(dir, kHeader, false, 1, std::chrono::milliseconds(20));
  append_runs(j, 1);
  for (int i = 0; i < 500 && j.syncs() < 2; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  EXPECT_EQ(j.syncs(), 2u);
  j.close();
  EXPECT_EQ(j.syncs(), 2u);  // nothing left to sync
  EXPECT_THROW(j.append({0, {1.0}, ""}), config::ConfigError);  // closed
}

TEST(SweepJournalSync, SyncAndCloseForceWhatWasAppended) {
  const auto dir = test::fresh_scratch_dir("journal", "sync_close");
  SweepJournal j(dir, kHeader, false, 3, std::chrono::hours(1));
  append_runs(j, 2);
  j.sync();
  EXPECT_EQ(j.syncs(), 2u);
  append_runs(j, 1);
  j.close();
  EXPECT_EQ(j.syncs(), 3u);
}

TEST(SweepJournalSync, AZeroIntervalSyncsEveryRun) {
  const auto dir = test::fresh_scratch_dir("journal", "sync_zero");
  SweepJournal j(dir, kHeader, false, 10, std::chrono::seconds(0));
  append_runs(j, 10);
  EXPECT_EQ(j.syncs(), 11u);
}

}  // namespace
}  // namespace socsim::sweep
