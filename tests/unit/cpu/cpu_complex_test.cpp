// CpuComplex::run timing on the synthetic CPU of cpu_test_spec.h: compute-bound, memory-bound,
// GEMM row padding, dispatch cost and compute_time. Arithmetic in the comments.
#include "sim/hw/cpu/cpu_complex.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "tests/unit/cpu/cpu_test_spec.h"

namespace socsim::hw {
namespace {

using testing::CpuBench;
using testing::kGB;
using testing::small_cpu_spec;
using testing::timed;

Tick run_alone(CpuBench& b, const CpuTask& t, const char* cluster, std::uint32_t threads) {
  Tick end = kTickMax;
  b.sim.spawn(timed(b.sim, b.cpu.run(t, cluster, threads), end), "task");
  EXPECT_EQ(b.sim.run(), RunResult::kIdle);
  return end;
}

// Runs `t` spread over the fastest cores and returns the core-time it reported stalled on DRAM.
Tick run_fastest_stalled(CpuBench& b, const CpuTask& t, std::uint32_t threads) {
  Tick stalled = 0, end = kTickMax;
  b.sim.spawn(timed(b.sim, b.cpu.run_on_fastest(t, threads, &stalled), end), "task");
  EXPECT_EQ(b.sim.run(), RunResult::kIdle);
  return stalled;
}

TEST(CpuComplex, ComputeBoundOnOneCore) {
  CpuBench b;
  // 8e6 FP32 ops / 8 FLOP per cycle = 1e6 cycles at 1 GHz = 1 ms.
  const CpuTask t{"ew", 8e6, DType::kFp32, 0, 0};
  EXPECT_EQ(run_alone(b, t, "mid", 1), 1 * kMillisecond);
  EXPECT_EQ(b.cpu.compute_time(t, "mid", 1), 1 * kMillisecond);
  EXPECT_EQ(b.cpu.core_busy("mid"), 1 * kMillisecond);
  EXPECT_EQ(b.cpu.wall_busy("mid"), 1 * kMillisecond);
  EXPECT_DOUBLE_EQ(b.cpu.ops_done("mid"), 8e6);
}

TEST(CpuComplex, ComputeBoundOnFourCores) {
  CpuBench b;
  // 8e6 / 4 threads = 2e6 ops each / 8 per cycle = 250,000 cycles at 1 GHz = 250 us.
  const CpuTask t{"ew", 8e6, DType::kFp32, 0, 0};
  EXPECT_EQ(run_alone(b, t, "mid", 4), 250 * kMicrosecond);
  EXPECT_EQ(b.cpu.compute_time(t, "mid", 4), 250 * kMicrosecond);
  // Core-time is 4 x 250 us; wall time 250 us.
  EXPECT_EQ(b.cpu.core_busy("mid"), 1 * kMillisecond);
  EXPECT_EQ(b.cpu.wall_busy("mid"), 250 * kMicrosecond);
  // One span per core on its own track.
  ASSERT_EQ(b.trace.spans().size(), 4u);
  EXPECT_EQ(b.trace.spans()[0].track, "cpu.mid0");
  EXPECT_EQ(b.trace.spans()[3].track, "cpu.mid3");
  EXPECT_EQ(b.trace.spans()[3].end, 250 * kMicrosecond);
}

TEST(CpuComplex, DtypePicksThroughput) {
  CpuBench b;
  // 8e6 INT8 ops / 32 per cycle = 250,000 cycles = 250 us; FP16 / 16 = 500 us; W4A16 runs on
  // the int8 path = 250 us.
  EXPECT_EQ(b.cpu.compute_time({"a", 8e6, DType::kInt8, 0, 0}, "mid", 1), 250 * kMicrosecond);
  EXPECT_EQ(b.cpu.compute_time({"a", 8e6, DType::kFp16, 0, 0}, "mid", 1), 500 * kMicrosecond);
  EXPECT_EQ(b.cpu.compute_time({"a", 8e6, DType::kW4A16, 0, 0}, "mid", 1), 250 * kMicrosecond);
}

TEST(CpuComplex, MemoryBoundLimitedByCoreBandwidth) {
  CpuBench b;
  // 1 MB at one mid core's 5 GB/s = 200 us; compute 8e3 / 8 = 1 us is hidden under it.
  const CpuTask t{"stream", 8e3, DType::kFp32, 1'000'000, 0};
  EXPECT_EQ(run_alone(b, t, "mid", 1), 200 * kMicrosecond);
  EXPECT_EQ(b.cpu.compute_time(t, "mid", 1), 200 * kMicrosecond);
  EXPECT_EQ(b.dram.port_bytes(b.dram.port("cpu.mid0")), 1'000'000u);
}

TEST(CpuComplex, StalledTimeIsTheWaitOnDramAfterCompute) {
  CpuBench b;
  // 1 MB at 5 GB/s = 200 us; compute 8e5 / 8 per cycle = 100 us: the core waits 100 us stalled.
  const CpuTask t{"stream", 8e5, DType::kFp32, 1'000'000, 0};
  Tick stalled = 0, end = kTickMax;
  b.sim.spawn(timed(b.sim, b.cpu.run(t, "mid", 1, &stalled), end), "task");
  ASSERT_EQ(b.sim.run(), RunResult::kIdle);
  EXPECT_EQ(end, 200 * kMicrosecond);
  EXPECT_EQ(stalled, 100 * kMicrosecond);
  EXPECT_EQ(b.cpu.core_stalled_by_cluster().at("mid"), 100 * kMicrosecond);
  EXPECT_EQ(b.cpu.core_stalled_by_cluster().at("prime"), 0);
  // On two cores: 500 KB each at 5 GB/s = 100 us, compute 4e5 / 8 = 50 us: 2 x 50 us stalled.
  Tick stalled2 = 0;
  b.sim.spawn(timed(b.sim, b.cpu.run(t, "mid", 2, &stalled2), end), "task2");
  ASSERT_EQ(b.sim.run(), RunResult::kIdle);
  EXPECT_EQ(stalled2, 100 * kMicrosecond);
  EXPECT_EQ(b.cpu.core_stalled_by_cluster().at("mid"), 200 * kMicrosecond);
}

TEST(CpuComplex, StallsOfATaskSpreadOverClustersAddUp) {
  CpuBench b;
  // 5 threads: prime (1) and mid (4), each part memory-bound (0.8 FP32 ops per byte: compute is
  // half of each core's stream time or less), all cores stall; one counter gets every part's.
  const Tick stalled = run_fastest_stalled(b, {"stream", 8e5, DType::kFp32, 1'000'000, 0}, 5);
  const auto by_cluster = b.cpu.core_stalled_by_cluster();
  EXPECT_GT(by_cluster.at("prime"), 0);
  EXPECT_GT(by_cluster.at("mid"), 0);
  EXPECT_EQ(stalled, by_cluster.at("prime") + by_cluster.at("mid"));
  EXPECT_LE(stalled, b.cpu.core_busy("prime") + b.cpu.core_busy("mid"));
}

TEST(CpuComplex, ComputeBoundTaskNeverStalls) {
  CpuBench b;
  // One thread goes to prime: 8e6 / 16 per cycle at 2 GHz = 250 us; 1 KB at 10 GB/s = 0.1 us.
  EXPECT_EQ(run_fastest_stalled(b, {"gemm", 8e6, DType::kFp32, 1'000, 0}, 1), 0);
  for (const auto& [cluster, t_stalled] : b.cpu.core_stalled_by_cluster()) EXPECT_EQ(t_stalled, 0) << cluster;
}

TEST(CpuComplex, MultiCoreTrafficIsOneFlowPerCore) {
  CpuBench b;
  // 4 flows of 250 KB, each capped at 5 GB/s (20 GB/s < the 40 GB/s port): 50 us.
  const CpuTask t{"stream", 0, DType::kFp32, 1'000'000, 0};
  EXPECT_EQ(run_alone(b, t, "mid", 4), 50 * kMicrosecond);
  EXPECT_EQ(b.cpu.compute_time(t, "mid", 4), 50 * kMicrosecond);
  for (const char* p : {"cpu.mid0", "cpu.mid1", "cpu.mid2", "cpu.mid3"}) {
    EXPECT_EQ(b.dram.port_bytes(b.dram.port(p)), 250'000u) << p;
  }
}

TEST(CpuComplex, CpuPortCapBoundsManyCores) {
  CpuSpec spec = small_cpu_spec();
  spec.port_bandwidth = 12 * kGB;
  CpuBench b(spec);
  // 4 cores could pull 20 GB/s but the CPU port allows 12: 1.2 MB / 12 GB/s = 100 us.
  const CpuTask t{"stream", 0, DType::kFp32, 1'200'000, 0};
  EXPECT_EQ(run_alone(b, t, "mid", 4), 100 * kMicrosecond);
  EXPECT_EQ(b.cpu.compute_time(t, "mid", 4), 100 * kMicrosecond);
}

TEST(CpuComplex, GemmRowsPaddedToTileRows) {
  // 2*M*64*64 INT8 ops. M = 32 and M = 64 both compute one 64-row block: 2*64*64*64 = 524,288
  // ops / 32 per cycle = 16,384 cycles at 1 GHz = 16.384 us. M = 65 needs two blocks: 32.768 us.
  const auto gemm = [](std::uint64_t m) { return CpuTask{"gemm", 2.0 * m * 64 * 64, DType::kInt8, 0, m}; };
  CpuBench b32, b64, b65;
  EXPECT_EQ(run_alone(b32, gemm(32), "mid", 1), 16'384 * kNanosecond);
  EXPECT_EQ(run_alone(b64, gemm(64), "mid", 1), 16'384 * kNanosecond);
  EXPECT_EQ(run_alone(b65, gemm(65), "mid", 1), 32'768 * kNanosecond);
  // Useful ops are counted unpadded.
  EXPECT_DOUBLE_EQ(b32.cpu.ops_done(), 2.0 * 32 * 64 * 64);
  // Not a GEMM (rows = 0): no padding, 2*32*64*64 / 32 = 8,192 cycles = 8.192 us.
  EXPECT_EQ(b32.cpu.compute_time({"ew", 2.0 * 32 * 64 * 64, DType::kInt8, 0, 0}, "mid", 1), 8'192 * kNanosecond);
}

TEST(CpuComplex, DispatchPaidOncePerRun) {
  CpuSpec spec = small_cpu_spec();
  spec.task_dispatch = 3 * kMicrosecond;
  CpuBench b(spec);
  // 3 us dispatch + 250 us of compute on 4 cores; the cores are held for all 253 us.
  const CpuTask t{"ew", 8e6, DType::kFp32, 0, 0};
  EXPECT_EQ(run_alone(b, t, "mid", 4), 253 * kMicrosecond);
  EXPECT_EQ(b.cpu.compute_time(t, "mid", 4), 253 * kMicrosecond);
  EXPECT_EQ(b.cpu.core_busy("mid"), 4 * 253 * kMicrosecond);
}

TEST(CpuComplexTrace, AWakeUpAndItsDispatchAreDrawnInTheOrderTheyArePaid) {
  // A cold core pays the idle exit, then the dispatch, then computes; the task's first core (the
  // thread that wakes the others) shows all three back to back, so its track sums to the time it
  // was held (the wake-up had no span and dispatch was drawn over it).
  CpuSpec spec = small_cpu_spec();
  spec.task_dispatch = 10 * kMicrosecond;
  spec.idle_wakeup = 1500 * kMicrosecond;
  spec.idle_threshold = 20 * kMillisecond;
  CpuBench b(spec);
  Tick end = 0;
  const CpuTask t{"work", 2e6, DType::kFp32, 0, 0};  // mid: 8 FLOPs per cycle at 1 GHz: 250 us
  b.sim.spawn(timed(b.sim, b.cpu.run(t, "mid", 1), end), "task");
  ASSERT_EQ(b.sim.run(), RunResult::kIdle);
  EXPECT_EQ(end, 1500 * kMicrosecond + 10 * kMicrosecond + 250 * kMicrosecond);
  std::vector<report::TraceSpan> mine;
  for (const auto& s : b.trace.spans()) {
    if (s.track == "cpu.mid0") mine.push_back(s);
  }
  std::sort(mine.begin(), mine.end(), [](const report::TraceSpan& a, const report::TraceSpan& c) { return a.start < c.start; });
  ASSERT_EQ(mine.size(), 3u);
  EXPECT_EQ(mine[0].name, "idle wake-up");
  EXPECT_EQ(mine[0].start, 0);
  EXPECT_EQ(mine[0].end, 1500 * kMicrosecond);
  EXPECT_EQ(mine[1].name, "dispatch");
  EXPECT_EQ(mine[1].start, 1500 * kMicrosecond);
  EXPECT_EQ(mine[1].end, 1510 * kMicrosecond);
  EXPECT_EQ(mine[2].start, 1510 * kMicrosecond);
  EXPECT_EQ(mine[2].end, end);
}

}  // namespace
}  // namespace socsim::hw
