// usleep granularity and flag polling (HeteroLLM 4.2's fast synchronization halves).
#include <gtest/gtest.h>

#include "sim/core/sync.h"
#include "sim/hw/cpu/cpu_complex.h"
#include "tests/unit/cpu/cpu_test_spec.h"

namespace socsim::hw {
namespace {

using testing::CpuBench;
using testing::timed;

Tick sleep_once(Tick duration) {
  CpuBench b;
  Tick end = kTickMax;
  b.sim.spawn(timed(b.sim, b.cpu.sleep(duration), end), "sleeper");
  EXPECT_EQ(b.sim.run(), RunResult::kIdle);
  // Sleeping holds no core.
  EXPECT_EQ(b.cpu.core_busy("mid") + b.cpu.core_busy("prime"), 0u);
  return end;
}

TEST(CpuWaits, SleepWakesAtGranularityMultiple) {
  // Granularity 90 us: 10 us -> 90, 90 -> 90, 91 -> 180, 0 -> 0.
  EXPECT_EQ(sleep_once(10 * kMicrosecond), 90 * kMicrosecond);
  EXPECT_EQ(sleep_once(90 * kMicrosecond), 90 * kMicrosecond);
  EXPECT_EQ(sleep_once(91 * kMicrosecond), 180 * kMicrosecond);
  EXPECT_EQ(sleep_once(0), 0u);
}

Task<> fire_at(Simulator& sim, Trigger& flag, Tick t) {
  co_await sim.delay_until(t);
  flag.fire();
}

Task<> poll_after(Simulator& sim, CpuComplex& cpu, Trigger& flag, Tick start, Tick& woke) {
  co_await sim.delay_until(start);
  co_await cpu.poll_until(flag, "mid");
  woke = sim.now();
}

TEST(CpuWaits, PollWakesAtFirstCheckAfterFire) {
  CpuBench b;
  Trigger flag(b.sim);
  Tick woke = 0;
  // Polling from 0.25 us checks at 0.25, 1.25, ..., 10.25, 11.25 us; the flag fires at 10.5 us,
  // so the 11.25 us check sees it.
  b.sim.spawn(poll_after(b.sim, b.cpu, flag, 250 * kNanosecond, woke), "poller");
  b.sim.spawn(fire_at(b.sim, flag, 10'500 * kNanosecond), "npu");
  EXPECT_EQ(b.sim.run(), RunResult::kIdle);
  EXPECT_EQ(woke, 11'250 * kNanosecond);
  // One mid core was busy spinning for 11 us; the prime core never.
  EXPECT_EQ(b.cpu.core_busy("mid"), 11 * kMicrosecond);
  EXPECT_EQ(b.cpu.wall_busy("mid"), 11 * kMicrosecond);
  EXPECT_EQ(b.cpu.core_busy("prime"), 0u);
  ASSERT_EQ(b.trace.spans().size(), 1u);
  EXPECT_EQ(b.trace.spans()[0].track, "cpu.mid0");
  EXPECT_EQ(b.trace.spans()[0].name, "poll");
}

TEST(CpuWaits, PollOnFiredFlagReturnsAtOnce) {
  CpuBench b;
  Trigger flag(b.sim);
  flag.fire();
  Tick woke = kTickMax;
  b.sim.spawn(poll_after(b.sim, b.cpu, flag, 5 * kMicrosecond, woke), "poller");
  EXPECT_EQ(b.sim.run(), RunResult::kIdle);
  EXPECT_EQ(woke, 5 * kMicrosecond);
  EXPECT_EQ(b.cpu.core_busy("mid"), 0u);
}

TEST(CpuWaits, PollerWaitsForACore) {
  CpuBench b;
  Trigger flag(b.sim);
  Tick task_end = 0, woke = 0;
  // All 4 mid cores run a 100 us task (3.2e6 / 4 / 8 = 1e5 cycles at 1 GHz); the poller gets a
  // core at 100 us, when the flag (fired at 50 us) is already set: it returns at once.
  b.sim.spawn(timed(b.sim, b.cpu.run({"busy", 3.2e6, DType::kFp32, 0, 0}, "mid", 4), task_end), "task");
  b.sim.spawn(poll_after(b.sim, b.cpu, flag, 0, woke), "poller");
  b.sim.spawn(fire_at(b.sim, flag, 50 * kMicrosecond), "npu");
  EXPECT_EQ(b.sim.run(), RunResult::kIdle);
  EXPECT_EQ(task_end, 100 * kMicrosecond);
  EXPECT_EQ(woke, 100 * kMicrosecond);
}

}  // namespace
}  // namespace socsim::hw
