#include "sim/core/statistics.h"

#include <gtest/gtest.h>

namespace socsim {
namespace {

TEST(BusyTime, NestedIntervalsCountOnce) {
  BusyTime b;
  b.begin(10);
  b.begin(15);  // overlaps
  b.end(20);
  b.end(30);    // busy [10,30) = 20
  b.begin(50);  // open interval
  EXPECT_EQ(b.busy(60), 30u);
  EXPECT_THROW((BusyTime{}.end(1)), std::logic_error);
}

TEST(TimeWeighted, Average) {
  TimeWeighted q;
  q.set(0, 2);
  q.set(10, 4);  // 2 for 10 ps, then 4 for 30 ps
  EXPECT_DOUBLE_EQ(q.integral(40), 2 * 10 + 4 * 30);
  EXPECT_DOUBLE_EQ(q.average(40), 140.0 / 40.0);
  EXPECT_DOUBLE_EQ(q.max(), 4.0);
}

TEST(StatRegistry, SnapshotAndDuplicateNames) {
  Counter c;
  c.add(3);
  BusyTime b;
  b.begin(0);
  b.end(2 * kMillisecond);
  StatRegistry reg;
  reg.add("npu.tiles", c);
  reg.add("npu.busy", b);
  auto snap = reg.snapshot(4 * kMillisecond);
  EXPECT_DOUBLE_EQ(snap["npu.tiles"], 3.0);
  EXPECT_DOUBLE_EQ(snap["npu.busy"], 2.0);  // ms
  EXPECT_THROW(reg.add("npu.tiles", c), std::logic_error);
}

}  // namespace
}  // namespace socsim
