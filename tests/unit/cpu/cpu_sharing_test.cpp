// Sharing the CPU: FIFO core contention, thread-count errors, run_on_fastest's split across
// clusters, other DRAM masters slowing CPU streams, and teardown with tasks in flight.
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#include "sim/hw/cpu/cpu_complex.h"
#include "tests/unit/cpu/cpu_test_spec.h"

namespace socsim::hw {
namespace {

using testing::CpuBench;
using testing::kGB;
using testing::timed;

TEST(CpuSharing, CoresAreGrantedFifo) {
  CpuBench b;
  // A and B each take 3 of the 4 mid cores for 100 us (2.4e6 ops / 3 threads = 8e5 each,
  // / 8 per cycle = 1e5 cycles at 1 GHz). C wants 1 core, and one is idle at t = 0, but C queued
  // behind B (strict FIFO), so it starts with B at 100 us and ends 50 us later.
  const CpuTask three{"t", 2.4e6, DType::kFp32, 0, 0};
  const CpuTask one{"c", 4e5, DType::kFp32, 0, 0};  // 4e5 / 8 = 50,000 cycles = 50 us
  Tick a = 0, bb = 0, c = 0;
  b.sim.spawn(timed(b.sim, b.cpu.run(three, "mid", 3), a), "A");
  b.sim.spawn(timed(b.sim, b.cpu.run(three, "mid", 3), bb), "B");
  b.sim.spawn(timed(b.sim, b.cpu.run(one, "mid", 1), c), "C");
  EXPECT_EQ(b.sim.run(), RunResult::kIdle);
  EXPECT_EQ(a, 100 * kMicrosecond);
  EXPECT_EQ(bb, 200 * kMicrosecond);
  EXPECT_EQ(c, 150 * kMicrosecond);
  // Core-time 3x100 + 3x100 + 1x50 = 650 us; wall time 0-200 us.
  EXPECT_EQ(b.cpu.core_busy("mid"), 650 * kMicrosecond);
  EXPECT_EQ(b.cpu.wall_busy("mid"), 200 * kMicrosecond);
  // B reuses cores 0-2 after A; C gets the idle core 3.
  bool c_on_mid3 = false;
  for (const auto& s : b.trace.spans()) c_on_mid3 = c_on_mid3 || (s.name == "c" && s.track == "cpu.mid3");
  EXPECT_TRUE(c_on_mid3);
}

TEST(CpuSharing, TooManyThreadsIsAnErrorNamingBothNumbers) {
  CpuBench b;
  const CpuTask t{"big", 1e6, DType::kFp32, 0, 0};
  try {
    (void)b.cpu.run(t, "mid", 5);
    FAIL() << "expected std::invalid_argument";
  } catch (const std::invalid_argument& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("5 threads"), std::string::npos) << msg;
    EXPECT_NE(msg.find("4 cores"), std::string::npos) << msg;
  }
  EXPECT_THROW((void)b.cpu.run(t, "mid", 0), std::invalid_argument);
  EXPECT_THROW((void)b.cpu.run(t, "gold", 1), std::invalid_argument);
  EXPECT_THROW((void)b.cpu.run_on_fastest(t, 6), std::invalid_argument);  // 1 + 4 cores
  EXPECT_THROW((void)b.cpu.compute_time(t, "prime", 2), std::invalid_argument);
}

TEST(CpuSharing, RunOnFastestSplitsByThroughput) {
  CpuBench b;
  // Per core FP32: prime 2 GHz x 16 = 32 GFLOP/s, mid 1 GHz x 8 = 8 GFLOP/s. Three threads =
  // prime + 2 mid: weights 32 : 16, so prime gets 2/3 of 4.8e6 = 3.2e6 ops (3.2e6 / 16 = 2e5
  // cycles at 2 GHz = 100 us) and mid 1.6e6 (0.8e6 per core / 8 = 1e5 cycles at 1 GHz = 100 us).
  // Bytes follow the shares: prime 200 KB (20 us at 10 GB/s), mid 100 KB (50 KB per core, 10 us
  // at 5 GB/s): compute-bound everywhere, all parts end at 100 us.
  const CpuTask t{"gemm", 4.8e6, DType::kFp32, 300'000, 0};
  Tick end = 0;
  b.sim.spawn(timed(b.sim, b.cpu.run_on_fastest(t, 3), end), "fastest");
  EXPECT_EQ(b.sim.run(), RunResult::kIdle);
  EXPECT_EQ(end, 100 * kMicrosecond);
  EXPECT_DOUBLE_EQ(b.cpu.ops_done("prime"), 3.2e6);
  EXPECT_DOUBLE_EQ(b.cpu.ops_done("mid"), 1.6e6);
  EXPECT_EQ(b.dram.port_bytes(b.dram.port("cpu.prime0")), 200'000u);
  EXPECT_EQ(b.dram.port_bytes(b.dram.port("cpu.mid0")), 50'000u);
  EXPECT_EQ(b.dram.port_bytes(b.dram.port("cpu.mid1")), 50'000u);
  EXPECT_EQ(b.cpu.core_busy("prime"), 100 * kMicrosecond);
  EXPECT_EQ(b.cpu.core_busy("mid"), 200 * kMicrosecond);
}

// Dynamic chunks balance on the rate each core reaches, the lower of its arithmetic and its
// stream: a memory-bound task gives a core the bytes it can move (a probe found a faster prime
// clock making a decode mat-vec 9% slower: the prime core was given bytes by its arithmetic).
Tick memory_bound_end(const CpuSpec& spec, std::uint32_t threads, std::uint64_t bytes) {
  CpuBench b(spec);
  Tick end = 0;
  b.sim.spawn(timed(b.sim, b.cpu.run_on_fastest({"mv", 3e3, DType::kFp32, bytes, 0}, threads), end), "fastest");
  EXPECT_EQ(b.sim.run(), RunResult::kIdle);
  return end;
}

TEST(CpuSharing, RunOnFastestGivesMemoryBoundWorkByStream) {
  // 3e3 ops over 3 MB: 1000 bytes per op. Streams: prime 10 GB/s, mid 5 GB/s per core (30 GB/s
  // in all, under the 40 GB/s port), so prime moves 1/3 (1 MB in 100 us) and each mid core 1/6
  // (0.5 MB in 100 us); by arithmetic (32 : 4 x 8 GFLOP/s) prime took half, 150 us.
  EXPECT_EQ(memory_bound_end(testing::small_cpu_spec(), 5, 3'000'000), 100 * kMicrosecond);
  // Under a 12 GB/s port the five streams get 2.4 GB/s each (max-min fair, below every cap): an
  // even 1.2 MB each, 500 us.
  auto narrow = testing::small_cpu_spec();
  narrow.port_bandwidth = 12 * kGB;
  EXPECT_EQ(memory_bound_end(narrow, 5, 6'000'000), 500 * kMicrosecond);
  // A faster prime clock moves no more bytes: the same time, not longer.
  auto fast = testing::small_cpu_spec();
  fast.clusters[0].clock_hz = 8'000'000'000;
  EXPECT_EQ(memory_bound_end(fast, 5, 3'000'000), 100 * kMicrosecond);
  // Nor does a faster mid cluster rank above prime for it: two threads stay prime + one mid
  // (prime 2/3 of 1.5 MB at 10 GB/s = 100 us), not two mid cores at 5 GB/s.
  auto fast_mid = testing::small_cpu_spec();
  fast_mid.clusters[1].clock_hz = 16'000'000'000;
  EXPECT_EQ(memory_bound_end(fast_mid, 2, 1'500'000), 100 * kMicrosecond);
}

// The rates are in the ops the cores execute: a 4-row GEMM computes the whole 64-row block, so
// it is compute-bound whatever its bytes per (unpadded) op (a review found 4-row CPU GEMMs up to
// 2.3x slower, shared out by stream as if memory-bound).
TEST(CpuSharing, RunOnFastestRatesThePaddedRows) {
  CpuBench b;
  // 3e5 ops over 4 rows execute 4.8e6 (x16); 300 KB is 0.0625 bytes per executed op: prime needs
  // 2 GB/s at 32 GFLOP/s, a mid core 0.5 GB/s at 8, all below their caps. Shares by arithmetic,
  // 32 : 4 x 8: prime 2.4e6 executed ops / 16 per cycle = 1.5e5 cycles at 2 GHz = 75 us; each mid
  // core 6e5 / 8 = 7.5e4 cycles at 1 GHz = 75 us (by stream, 10 : 4 x 5, mid took 2/3: 100 us).
  Tick end = 0;
  b.sim.spawn(timed(b.sim, b.cpu.run_on_fastest({"gemm4", 3e5, DType::kFp32, 300'000, 4}, 5), end), "fastest");
  EXPECT_EQ(b.sim.run(), RunResult::kIdle);
  EXPECT_EQ(end, 75 * kMicrosecond);
  EXPECT_DOUBLE_EQ(b.cpu.ops_done("prime"), 1.5e5);
}

// A core whose arithmetic keeps it from using its share of the port leaves the rest to the
// others: two slow little cores added to a memory-bound task do not slow it (a review found 8
// threads slower than 6 with 0.1 GHz little cores).
TEST(CpuSharing, RunOnFastestSlowCoresLeaveTheirStreamToOthers) {
  auto spec = testing::small_cpu_spec();
  spec.port_bandwidth = 20 * kGB;
  spec.clusters.push_back({"little", 2, 100'000'000, 8, 16, 32, 4 * kGB});
  // 1e7 ops over 2e7 bytes (2 per op). Five threads (prime + 4 mid) share the 20 GB/s port evenly,
  // 4 GB/s each under their caps, so each moves 4 MB in 1 ms.
  const CpuTask t{"mv", 1e7, DType::kFp32, 20'000'000, 0};
  const auto end_with = [&](std::uint32_t threads) {
    CpuBench b(spec);
    Tick end = 0;
    b.sim.spawn(timed(b.sim, b.cpu.run_on_fastest(t, threads), end), "fastest");
    EXPECT_EQ(b.sim.run(), RunResult::kIdle);
    // All the work is done, split as computed: the little cores' 1.6e6 ops (7 threads).
    EXPECT_DOUBLE_EQ(b.cpu.ops_done("prime") + b.cpu.ops_done("mid") + b.cpu.ops_done("little"), 1e7);
    if (threads == 7) {
      EXPECT_NEAR(b.cpu.ops_done("little"), 1.6e6, 1.0);
    }
    return end;
  };
  EXPECT_EQ(end_with(5), 1 * kMillisecond);
  // The little cores compute 0.8 GFLOP/s, so use 1.6 GB/s each: the other five share 16.8 GB/s
  // (3.36 each) and the little ones take 1.6e6 ops, 1 ms of their arithmetic. By an even share
  // of the port they took 1.83e6, 1.14 ms.
  EXPECT_LE(end_with(7), 1 * kMillisecond);
}

TEST(CpuSharing, RunOnFastestWithinOneCluster) {
  CpuBench b;
  // One thread: the prime core alone, 3.2e6 / 16 = 2e5 cycles at 2 GHz = 100 us.
  Tick end = 0;
  b.sim.spawn(timed(b.sim, b.cpu.run_on_fastest({"g", 3.2e6, DType::kFp32, 0, 0}, 1), end), "fastest");
  EXPECT_EQ(b.sim.run(), RunResult::kIdle);
  EXPECT_EQ(end, 100 * kMicrosecond);
  EXPECT_EQ(b.cpu.core_busy("mid"), 0u);
}

Task<> other_master(DramModel& dram, PortId p, std::uint64_t bytes) { co_await dram.transfer(p, bytes); }

TEST(CpuSharing, OtherMastersSlowCpuStreams) {
  CpuBench b;
  // A 15 GB/s DRAM shared by a GPU flow (cap 64 GB/s) and one prime core (cap 10 GB/s):
  // max-min fair gives 7.5 GB/s each, below both caps, so the core's 750 KB take 100 us instead
  // of the 75 us it would need alone at 10 GB/s.
  Simulator sim;
  DramModel dram(sim, 15 * kGB);
  const PortId gpu = dram.add_port("gpu", 64 * kGB);
  const PortId cpu_port = dram.add_port("cpu", 40 * kGB);
  CpuComplex cpu(sim, testing::small_cpu_spec(), dram, cpu_port, nullptr);
  Tick end = 0;
  sim.spawn(other_master(dram, gpu, 10'000'000), "gpu");
  sim.spawn(timed(sim, cpu.run({"s", 0, DType::kFp32, 750'000, 0}, "prime", 1), end), "cpu");
  EXPECT_EQ(sim.run(), RunResult::kIdle);
  EXPECT_EQ(end, 100 * kMicrosecond);
}

TEST(CpuSharing, TeardownWithTasksInFlight) {
  // A 4-core task still running when everything is destroyed (CPU first, then DRAM, then the
  // simulator kills the frames): the frames must give their cores back without touching freed
  // memory (checked under ASan).
  CpuBench b;
  b.sim.spawn(b.cpu.run({"long", 8e6, DType::kFp32, 4'000'000, 0}, "mid", 4), "long");
  b.sim.spawn(b.cpu.run({"queued", 8e6, DType::kFp32, 0, 0}, "mid", 2), "queued");
  EXPECT_EQ(b.sim.run(50 * kMicrosecond), RunResult::kTimeLimit);
}

}  // namespace
}  // namespace socsim::hw
