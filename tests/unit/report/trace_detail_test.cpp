// What a TraceRecorder keeps at each detail level, and where the automatic level stops hardware
// detail.
#include <gtest/gtest.h>

#include "sim/report/trace.h"

namespace socsim::report {
namespace {

void record(TraceRecorder& t, int hardware, int plan) {
  for (int i = 0; i < hardware; ++i) {
    if (tracing_hardware(&t)) t.hardware_span("cpu.mid0", "part", static_cast<Tick>(i) * 10, static_cast<Tick>(i) * 10 + 5);
  }
  for (int i = 0; i < plan; ++i) t.span("cpu", "job", static_cast<Tick>(i) * 10, static_cast<Tick>(i) * 10 + 9);
}

TEST(TraceDetail, OffKeepsNothing) {
  TraceRecorder t(TraceDetail::kOff);
  record(t, 5, 5);
  t.counter("dram.bandwidth_gbps", 0, 1.0);
  t.flow("npu", 0, "gpu", 1, "npu->gpu");
  EXPECT_FALSE(t.on());
  EXPECT_FALSE(tracing_hardware(&t));
  EXPECT_TRUE(t.spans().empty());
  EXPECT_TRUE(t.counters().empty());
  EXPECT_TRUE(t.flows().empty());
}

TEST(TraceDetail, SummaryKeepsJobsNotHardware) {
  TraceRecorder t(TraceDetail::kSummary);
  record(t, 5, 3);
  t.hardware_counter("gpu.queue_depth", 0, 1.0);  // a caller that did not ask first
  t.counter("dram.bandwidth_gbps", 0, 1.0);
  ASSERT_EQ(t.spans().size(), 3u);
  for (const auto& s : t.spans()) EXPECT_EQ(s.track, "cpu");
  ASSERT_EQ(t.counters().size(), 1u);
  EXPECT_EQ(t.counters()[0].track, "dram.bandwidth_gbps");
  EXPECT_FALSE(t.hardware_until());
}

TEST(TraceDetail, AutoStopsHardwareAtTheLimitAndSaysWhen) {
  TraceRecorder t(TraceDetail::kAuto, 4);
  record(t, 10, 0);
  // Four kept; the fifth (at t = 40) found the limit and ended hardware detail.
  EXPECT_EQ(t.spans().size(), 4u);
  ASSERT_TRUE(t.hardware_until());
  EXPECT_EQ(*t.hardware_until(), 40u);
  EXPECT_FALSE(tracing_hardware(&t));
  // Jobs go on being recorded, up to their own limit, then are counted.
  record(t, 0, 6);
  EXPECT_EQ(t.spans().size(), 8u);
  EXPECT_EQ(t.plan_dropped(), 2u);
}

TEST(TraceDetail, FullKeepsEverything) {
  TraceRecorder t(TraceDetail::kFull, 4);
  record(t, 10, 10);
  EXPECT_EQ(t.spans().size(), 20u);
  EXPECT_FALSE(t.hardware_until());
  EXPECT_EQ(t.plan_dropped(), 0u);
}

}  // namespace
}  // namespace socsim::report
