// CpuComplex::run_on_fastest's choice of cores: pinned cores left to the work that names their
// cluster, and the cluster ranked by when one core would finish its share, wake-up included.
// The synthetic CPU of cpu_test_spec.h (prime: 1 core, 32e9 FP32 ops/s; mid: 4 cores, 8e9 each).
#include <gtest/gtest.h>

#include <stdexcept>

#include "sim/hw/cpu/cpu_complex.h"
#include "tests/unit/cpu/cpu_test_spec.h"

namespace socsim::hw {
namespace {

using testing::CpuBench;
using testing::small_cpu_spec;
using testing::timed;

// Runs `task` on one core of `cluster` from `at` on, and records when it ended: started after the
// fastest work has taken its cores.
Task<> named_from(Simulator& sim, CpuComplex& cpu, Tick at, CpuTask task, const char* cluster, Tick& end) {
  co_await sim.delay(at);
  co_await cpu.run(task, cluster, 1);
  end = sim.now();
}

// Five threads of 56e6 FP32 ops on the fastest cores from time 0, and 8e6 ops on one mid core
// from 1 us on (the budget's own work: 1 ms at 8e9/s); when each ended.
struct Ends {
  Tick wide = 0, own = 0;
};
Ends wide_and_own(CpuBench& b) {
  const CpuTask wide{"wide", 56e6, DType::kFp32, 0, 0};
  const CpuTask own{"own", 8e6, DType::kFp32, 0, 0};
  Ends e;
  b.sim.spawn(timed(b.sim, b.cpu.run_on_fastest(wide, 5), e.wide), "wide");
  b.sim.spawn(named_from(b.sim, b.cpu, 1 * kMicrosecond, own, "mid", e.own), "own");
  EXPECT_EQ(b.sim.run(), RunResult::kIdle);
  return e;
}

TEST(CpuPins, FastestWorkKeepsOffThePinnedCoresAndNamedWorkStartsAtOnce) {
  CpuBench b;
  b.cpu.set_pins({{"mid", 1}});
  EXPECT_EQ(b.cpu.pinned("mid"), 1u);
  EXPECT_EQ(b.cpu.pinned("prime"), 0u);
  // Five threads asked for, four cores not pinned: the prime core (weight 32) and three mid
  // cores (3 x 8): the prime core's 32e6 ops at 32e9/s and each mid core's 8e6 at 8e9/s, 1 ms
  // both. The budget's work on its pinned core starts at once.
  const Ends e = wide_and_own(b);
  EXPECT_EQ(e.wide, 1 * kMillisecond);
  EXPECT_EQ(e.own, 1 * kMicrosecond + 1 * kMillisecond);
  EXPECT_EQ(b.cpu.core_busy("mid"), 4 * kMillisecond);
  EXPECT_EQ(b.cpu.core_busy("prime"), 1 * kMillisecond);
}

TEST(CpuPins, WithoutThePinTheNamedWorkWaitsForTheCores) {
  // Nothing pinned: the fastest work holds every mid core (weights 32 + 4 x 8: the prime core's
  // 28e6 ops and each mid core's 7e6 take 0.875 ms), and the named task starts when they are
  // given back.
  CpuBench b;
  const Ends e = wide_and_own(b);
  EXPECT_EQ(e.wide, 875 * kMicrosecond);
  EXPECT_EQ(e.own, 875 * kMicrosecond + 1 * kMillisecond);
}

TEST(CpuPins, SetPinsReplacesThemAndRefusesWhatTheClusterCannotGive) {
  CpuBench b;
  b.cpu.set_pins({{"mid", 2}, {"prime", 1}});
  EXPECT_EQ(b.cpu.pinned("mid"), 2u);
  EXPECT_THROW(b.cpu.set_pins({{"nope", 1}}), std::invalid_argument);
  EXPECT_THROW(b.cpu.set_pins({{"mid", 5}}), std::invalid_argument);
  EXPECT_THROW(b.cpu.set_pins({{"mid", 3}, {"mid", 2}}), std::invalid_argument);
  // A refused list changes nothing.
  EXPECT_EQ(b.cpu.pinned("mid"), 2u);
  EXPECT_EQ(b.cpu.pinned("prime"), 1u);
  b.cpu.set_pins({});
  EXPECT_EQ(b.cpu.pinned("mid"), 0u);
  EXPECT_EQ(b.cpu.pinned("prime"), 0u);
}

TEST(CpuPins, FastestWorkWithEveryCorePinnedSharesThePinnedCores) {
  // A one-core budget on a one-core CPU pins everything: the other work still runs, on the
  // pinned cores (here the prime core: 32e6 ops at 32e9/s = 1 ms), not an error.
  CpuBench b;
  b.cpu.set_pins({{"mid", 4}, {"prime", 1}});
  const CpuTask t{"t", 32e6, DType::kFp32, 0, 0};
  Tick end = 0;
  b.sim.spawn(timed(b.sim, b.cpu.run_on_fastest(t, 1), end), "t");
  ASSERT_EQ(b.sim.run(), RunResult::kIdle);
  EXPECT_EQ(end, 1 * kMillisecond);
  EXPECT_DOUBLE_EQ(b.cpu.ops_done("prime"), 32e6);
}

// Runs `first` on one mid core, then `then` on the fastest core for it, and records the end.
Task<> mid_then_fastest(CpuComplex& cpu, CpuTask first, CpuTask then, Tick& end, Simulator& sim) {
  co_await cpu.run(first, "mid", 1);
  co_await cpu.run_on_fastest(then, 1);
  end = sim.now();
}

CpuSpec waking_spec() {
  CpuSpec s = small_cpu_spec();
  s.idle_wakeup = 1500 * kMicrosecond;
  s.idle_threshold = 1 * kMillisecond;
  return s;
}

TEST(CpuFastestRanking, ASmallTaskStaysOnTheAwakeClusterRatherThanWakeAFasterOne) {
  CpuBench b(waking_spec());
  // The mid task wakes mid (1.5 ms) and computes 1 ms: ends at 2.5 ms, mid awake. Then 8e3 ops:
  // on the idle prime core 1.5 ms + 0.25 us, on an awake mid core 1 us: mid.
  const CpuTask warm{"warm", 8e6, DType::kFp32, 0, 0}, small{"small", 8e3, DType::kFp32, 0, 0};
  Tick end = 0;
  b.sim.spawn(mid_then_fastest(b.cpu, warm, small, end, b.sim), "turns");
  ASSERT_EQ(b.sim.run(), RunResult::kIdle);
  EXPECT_EQ(end, 2500 * kMicrosecond + 1 * kMicrosecond);
  EXPECT_DOUBLE_EQ(b.cpu.ops_done("prime"), 0.0);
  EXPECT_DOUBLE_EQ(b.cpu.ops_done("mid"), 8e6 + 8e3);
}

// (The test below holds every mid core with 8e8 ops from time 0: 25 ms after a 1.5 ms wake-up.) At
// 2 ms, runs `small` on the fastest core for it and records when it ended.
Task<> small_beside_busy_mid(Simulator& sim, CpuComplex& cpu, CpuTask small, Tick& end) {
  co_await sim.delay(2 * kMillisecond);
  co_await cpu.run_on_fastest(small, 1);
  end = sim.now();
}

TEST(CpuFastestRanking, ABusyClusterIsNotTakenForAnAwakeOne) {
  // Its cores all held, mid would keep the small task waiting 24.5 ms; it is charged a wake-up as
  // the idle prime core is, and the prime core's rate wins: 2 ms + 1.5 ms + 0.25 us.
  CpuBench b(waking_spec());
  const CpuTask hold{"hold", 8e8, DType::kFp32, 0, 0}, small{"small", 8e3, DType::kFp32, 0, 0};
  Tick held = 0, end = 0;
  b.sim.spawn(timed(b.sim, b.cpu.run(hold, "mid", 4), held), "hold");
  b.sim.spawn(small_beside_busy_mid(b.sim, b.cpu, small, end), "small");
  ASSERT_EQ(b.sim.run(), RunResult::kIdle);
  EXPECT_EQ(end, 3500 * kMicrosecond + 250 * kNanosecond);
  EXPECT_DOUBLE_EQ(b.cpu.ops_done("prime"), 8e3);
}

TEST(CpuFastestRanking, ALargeTaskStillWakesTheFasterCluster) {
  CpuBench b(waking_spec());
  // 8e8 ops: prime 1.5 ms + 25 ms against mid's 100 ms: prime, ending 2.5 + 26.5 ms.
  const CpuTask warm{"warm", 8e6, DType::kFp32, 0, 0}, large{"large", 8e8, DType::kFp32, 0, 0};
  Tick end = 0;
  b.sim.spawn(mid_then_fastest(b.cpu, warm, large, end, b.sim), "turns");
  ASSERT_EQ(b.sim.run(), RunResult::kIdle);
  EXPECT_EQ(end, 2500 * kMicrosecond + 1500 * kMicrosecond + 25 * kMillisecond);
  EXPECT_DOUBLE_EQ(b.cpu.ops_done("prime"), 8e8);
}

}  // namespace
}  // namespace socsim::hw
