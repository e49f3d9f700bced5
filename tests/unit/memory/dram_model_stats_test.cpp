// Bytes, busy time, bandwidth statistics and the timeline of the DRAM model.
#include "sim/hw/memory/dram_model.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "tests/unit/memory/dram_test_util.h"

namespace socsim::hw {
namespace {

using testing::Done;
using testing::flow_at;
using testing::GB;

TEST(DramModelStats, ZeroByteFlowCompletesAtOnceWithoutAnEvent) {
  Simulator sim;
  DramModel dram(sim, 68 * GB);
  const PortId gpu = dram.add_port("gpu", 40 * GB);
  Done d;
  d.sim = &sim;
  dram.start_flow(gpu, 0, &Done::fn, &d);
  EXPECT_EQ(d.at, 0u);  // called inline
  EXPECT_EQ(sim.pending_events(), 0u);
  EXPECT_EQ(dram.active_flows(), 0u);
  EXPECT_EQ(dram.total_bytes(), 0u);
}

TEST(DramModelStats, ManyFlowsConserveBytes) {
  Simulator sim;
  DramModel dram(sim, 68 * GB);
  const PortId cpu = dram.add_port("cpu", 40 * GB);
  const PortId other = dram.add_port("gpu", 40 * GB);
  // 1000 flows of 10'000..10'999 B arriving 1 ns apart. The port moves 40 B/ns and each
  // arrival brings >= 10'000 B, so it is saturated from 0 to the end.
  constexpr int kFlows = 1000;
  std::vector<Done> d(kFlows);
  std::uint64_t sum = 0;
  for (int i = 0; i < kFlows; ++i) {
    const std::uint64_t bytes = 10'000 + (static_cast<std::uint64_t>(i) * 37) % 1000;
    sum += bytes;
    flow_at(sim, dram, static_cast<Tick>(i) * kNanosecond, cpu, bytes, d[i]);
  }
  sim.run();
  EXPECT_EQ(dram.total_bytes(), sum);
  EXPECT_EQ(dram.port_bytes(cpu), sum);
  EXPECT_EQ(dram.port_bytes(other), 0u);
  // Last completion = sum / 40 GB/s, plus at most 1 ps of rounding per completion.
  const Tick ideal = static_cast<Tick>(static_cast<double>(sum) / 40e9 * 1e12);
  Tick last = 0;
  for (const Done& x : d) last = std::max(last, x.at);
  EXPECT_GE(last, ideal);
  EXPECT_LE(last, ideal + kFlows);
  EXPECT_EQ(dram.busy().busy(sim.now()), last);
  EXPECT_EQ(dram.port_busy(cpu).busy(sim.now()), last);
  EXPECT_EQ(dram.port_busy(other).busy(sim.now()), 0u);
}

TEST(DramModelStats, TimelineAndTimeWeightedBandwidth) {
  Simulator sim;
  DramModel dram(sim, 60 * GB);
  const PortId gpu = dram.add_port("gpu", 40 * GB);
  const PortId npu = dram.add_port("npu", 40 * GB);
  dram.record_timeline(true);
  Done a, b;
  flow_at(sim, dram, 0, gpu, 1'000'000, a);
  flow_at(sim, dram, 10 * kMicrosecond, npu, 1'000'000, b);
  // [0, 10):  A alone at 40; moves 400 KB.
  // [10, 30): both at 60 / 2 = 30; A's other 600 KB take 20 us.  B moves 600 KB.
  // [30, 40): B alone at 40; its other 400 KB take 10 us.
  sim.run();
  EXPECT_EQ(a.at, 30 * kMicrosecond);
  EXPECT_EQ(b.at, 40 * kMicrosecond);

  const auto& tl = dram.timeline();
  ASSERT_EQ(tl.size(), 4u);
  const std::vector<Tick> times{0, 10 * kMicrosecond, 30 * kMicrosecond, 40 * kMicrosecond};
  const std::vector<double> total{40 * GB, 60 * GB, 40 * GB, 0.0};
  const std::vector<std::vector<double>> per_port{{40 * GB, 0.0}, {30 * GB, 30 * GB}, {0.0, 40 * GB}, {0.0, 0.0}};
  for (std::size_t i = 0; i < tl.size(); ++i) {
    EXPECT_EQ(tl[i].time, times[i]) << i;
    EXPECT_DOUBLE_EQ(tl[i].total_bps, total[i]) << i;
    EXPECT_EQ(tl[i].port_bps, per_port[i]) << i;
  }
  // Integral 40 x 10 + 60 x 20 + 40 x 10 = 2000 GB/s.us over 40 us = 50 GB/s (= 2 MB / 40 us).
  EXPECT_DOUBLE_EQ(dram.bandwidth().average(sim.now()), 50 * GB);
  EXPECT_DOUBLE_EQ(dram.bandwidth().max(), 60 * GB);
  EXPECT_EQ(dram.busy().busy(sim.now()), 40 * kMicrosecond);
  EXPECT_EQ(dram.port_busy(gpu).busy(sim.now()), 30 * kMicrosecond);
  EXPECT_EQ(dram.port_busy(npu).busy(sim.now()), 30 * kMicrosecond);
  EXPECT_EQ(dram.total_bytes(), 2'000'000u);
}

TEST(DramModelStats, SameTickStartsLeaveNoZeroLengthPeak) {
  Simulator sim;
  // One master alone may reach 60; two together only 68 x 0.5 = 34.
  DramModel dram(sim, 68 * GB, {1.0, 0.5});
  const PortId gpu = dram.add_port("gpu", 60 * GB);
  const PortId npu = dram.add_port("npu", 60 * GB);
  dram.record_timeline(true);
  Done a, b;
  flow_at(sim, dram, 0, gpu, 1'700'000, a);
  flow_at(sim, dram, 0, npu, 1'700'000, b);
  sim.run();
  // Both at 17 GB/s from the start: 1.7 MB / 17 GB/s = 100 us. gpu alone at 60 lasted 0 ps,
  // so it shows neither in max() nor in the timeline.
  EXPECT_EQ(a.at, 100'000'000u);
  EXPECT_DOUBLE_EQ(dram.bandwidth().max(), 34 * GB);
  ASSERT_EQ(dram.timeline().size(), 2u);
  EXPECT_DOUBLE_EQ(dram.timeline()[0].total_bps, 34 * GB);
  EXPECT_DOUBLE_EQ(dram.timeline()[1].total_bps, 0.0);
}

TEST(DramModelStats, ParentPortCountsItsChildren) {
  Simulator sim;
  DramModel dram(sim, 68 * GB);
  const PortId npu = dram.add_port("npu", 45 * GB);
  const PortId dma = dram.add_port("npu.dma", 60 * GB, npu);
  const PortId hvx = dram.add_port("npu.hvx", 26 * GB, npu);
  Done a, b;
  flow_at(sim, dram, 0, dma, 2'250'000, a);
  flow_at(sim, dram, 0, hvx, 1'125'000, b);
  // 22.5 GB/s each. At 20 us each moved 450 KB; hvx ends at 50 us, then dma runs alone at 45.
  sim.run(20 * kMicrosecond);
  EXPECT_EQ(dram.port_bytes(dma), 450'000u);
  EXPECT_EQ(dram.port_bytes(hvx), 450'000u);
  EXPECT_EQ(dram.port_bytes(npu), 900'000u);
  EXPECT_DOUBLE_EQ(dram.current_bandwidth(), 45 * GB);
  EXPECT_EQ(dram.active_flows(), 2u);
  sim.run();
  // dma: 1.125 MB by 50 us, the other 1.125 MB at 45 GB/s = 25 us -> 75 us.
  EXPECT_EQ(b.at, 50 * kMicrosecond);
  EXPECT_EQ(a.at, 75 * kMicrosecond);
  EXPECT_EQ(dram.port_bytes(npu), 3'375'000u);
  EXPECT_EQ(dram.port_busy(npu).busy(sim.now()), 75 * kMicrosecond);
  EXPECT_EQ(dram.port_busy(hvx).busy(sim.now()), 50 * kMicrosecond);
  EXPECT_DOUBLE_EQ(dram.current_bandwidth(), 0.0);
}

}  // namespace
}  // namespace socsim::hw
