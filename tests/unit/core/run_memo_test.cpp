// RunMemo (sim/core/run_memo.h): recorded the second time a key is met, replayed from then on, and
// a record handed out stays valid when the memo starts over (a replay holds it through its delay).
#include "sim/core/run_memo.h"

#include <gtest/gtest.h>

#include <vector>

namespace socsim {
namespace {

struct Rec {
  Tick duration = 0;
  std::uint64_t events = 0;
  std::vector<int> payload;  // heap-held, as the CPU's and NPU's records' per-core vectors
};

TEST(RunMemo, RecordsTheSecondTimeAndReplaysFromThen) {
  Simulator sim;
  RunMemo<Rec> memo;
  int recorded = 0;
  const auto record = [&] {
    ++recorded;
    return Rec{10, 5, {1, 2, 3}};
  };
  const Signature key{1, 2};
  EXPECT_EQ(memo.replayable(key, sim, record), nullptr);  // first time: seen, not recorded
  const auto rec = memo.replayable(key, sim, record);
  ASSERT_NE(rec, nullptr);
  EXPECT_EQ(recorded, 1);
  EXPECT_EQ(memo.replayable(key, sim, record), rec);  // the same record, shared, not copied
  EXPECT_EQ(recorded, 1);
}

TEST(RunMemo, ARecordHandedOutOutlivesTheMemoStartingOver) {
  Simulator sim;
  RunMemo<Rec> memo;
  const auto record = [] { return Rec{10, 5, std::vector<int>(64, 7)}; };
  const Signature key{3, 4};
  memo.replayable(key, sim, record);
  const auto held = memo.replayable(key, sim, record);
  ASSERT_NE(held, nullptr);
  // Past its bound the memo starts over: every entry, the held record's among them, is dropped.
  for (std::uint64_t i = 0; i <= RunMemo<Rec>::kLimit; ++i) memo.find({100 + i, i});
  EXPECT_EQ(memo.find(key), nullptr);
  // The holder still reads it whole (under ASan a freed record would fail here).
  EXPECT_EQ(held->duration, 10u);
  ASSERT_EQ(held->payload.size(), 64u);
  EXPECT_EQ(held->payload.back(), 7);
}

TEST(RunMemo, NotReplayedWhenSomethingIsDueBeforeItsEnd) {
  Simulator sim;
  RunMemo<Rec> memo;
  const auto record = [] { return Rec{10, 5, {}}; };
  const Signature key{5, 6};
  memo.replayable(key, sim, record);
  sim.schedule_at(5, [](void*) {}, nullptr);  // due inside the 10 ticks the replay would skip
  EXPECT_EQ(memo.replayable(key, sim, record), nullptr);
}

}  // namespace
}  // namespace socsim
