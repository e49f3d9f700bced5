// Rates and completion times of the fluid DRAM model, every case worked out by hand.
#include "sim/hw/memory/dram_model.h"

#include <gtest/gtest.h>

#include <vector>

#include "tests/unit/memory/dram_test_util.h"

namespace socsim::hw {
namespace {

using testing::Done;
using testing::flow_at;
using testing::GB;

TEST(DramModel, OneFlowLimitedByItsPortCap) {
  Simulator sim;
  DramModel dram(sim, 68 * GB);
  const PortId gpu = dram.add_port("gpu", 40 * GB);
  Done d;
  flow_at(sim, dram, 0, gpu, 1'000'000, d);
  sim.run();
  // 1 MB at 40 GB/s (cap < peak 68) = 25 us.
  EXPECT_EQ(d.at, 25'000'000u);
  EXPECT_EQ(dram.active_flows(), 0u);
}

TEST(DramModel, OneFlowLimitedByThePeak) {
  Simulator sim;
  DramModel dram(sim, 68 * GB);
  const PortId gpu = dram.add_port("gpu", 100 * GB);
  Done d;
  flow_at(sim, dram, 0, gpu, 6'800'000, d);
  sim.run();
  // Cap 100 > peak 68: 6.8 MB at 68 GB/s = 100 us.
  EXPECT_EQ(d.at, 100'000'000u);
}

TEST(DramModel, TwoMastersShareTheEfficiencyScaledPeak) {
  Simulator sim;
  // Two masters streaming: root = 68 x (60/68) = 60 GB/s.
  DramModel dram(sim, 68 * GB, {1.0, 60.0 / 68.0});
  const PortId gpu = dram.add_port("gpu", 40 * GB);
  const PortId npu = dram.add_port("npu", 40 * GB);
  Done a, b;
  flow_at(sim, dram, 0, gpu, 3'000'000, a);
  flow_at(sim, dram, 0, npu, 3'000'000, b);
  sim.run(1);
  // Caps 40 + 40 > 60: each gets 60 / 2 = 30 GB/s.
  EXPECT_DOUBLE_EQ(dram.current_bandwidth(), 60 * GB);
  sim.run();
  // 3 MB at 30 GB/s = 100 us, both.
  EXPECT_EQ(a.at, 100'000'000u);
  EXPECT_EQ(b.at, 100'000'000u);
}

TEST(DramModel, EfficiencyLastValueAppliesToMoreMasters) {
  Simulator sim;
  DramModel dram(sim, 68 * GB, {1.0, 0.9});
  std::vector<Done> d(3);
  for (int i = 0; i < 3; ++i) {
    const PortId p = dram.add_port("m" + std::to_string(i), 40 * GB);
    flow_at(sim, dram, 0, p, 2'040'000, d[i]);
  }
  sim.run();
  // Three masters use the last value 0.9: root 68 x 0.9 = 61.2, 20.4 each; 2.04 MB / 20.4 GB/s = 100 us.
  for (const Done& x : d) EXPECT_EQ(x.at, 100'000'000u);
}

TEST(DramModel, UnequalCapsAreMaxMinFair) {
  Simulator sim;
  DramModel dram(sim, 68 * GB);
  const PortId gpu = dram.add_port("gpu", 20 * GB);
  const PortId npu = dram.add_port("npu", 60 * GB);
  Done a, b;
  flow_at(sim, dram, 0, gpu, 2'000'000, a);
  flow_at(sim, dram, 0, npu, 4'800'000, b);
  // gpu stops at its cap 20; npu takes 68 - 20 = 48 (below its cap 60).
  // gpu: 2 MB / 20 GB/s = 100 us; npu: 4.8 MB / 48 GB/s = 100 us.
  sim.run();
  EXPECT_EQ(a.at, 100'000'000u);
  EXPECT_EQ(b.at, 100'000'000u);
}

TEST(DramModel, FlowArrivingMidwaySlowsTheFirst) {
  Simulator sim;
  DramModel dram(sim, 68 * GB);
  const PortId gpu = dram.add_port("gpu", 40 * GB);
  const PortId npu = dram.add_port("npu", 40 * GB);
  Done a, b;
  flow_at(sim, dram, 0, gpu, 1'000'000, a);
  flow_at(sim, dram, 10 * kMicrosecond, npu, 1'000'000, b);
  // [0, 10 us): A alone at 40 GB/s moves 400'000 B, 600'000 left.
  // From 10 us both run at 68 / 2 = 34 GB/s: A needs 600'000 / 34e9 s = 17'647'058.82 ps,
  //   rounded up: A ends at 10'000'000 + 17'647'059 = 27'647'059 ps.
  // B moved 34e9 x 17'647'059e-12 = 600'000.006 B by then; 399'999.994 B left alone at
  //   40 GB/s = 9'999'999.85 ps -> 10'000'000: B ends at 37'647'059 ps.
  sim.run(10 * kMicrosecond);
  EXPECT_EQ(dram.total_bytes(), 400'000u);
  sim.run();
  EXPECT_EQ(a.at, 27'647'059u);
  EXPECT_EQ(b.at, 37'647'059u);
}

TEST(DramModel, NestedPortsShareTheirParentsCap) {
  Simulator sim;
  DramModel dram(sim, 68 * GB);
  const PortId npu = dram.add_port("npu", 45 * GB);
  const PortId dma = dram.add_port("npu.dma", 60 * GB, npu);
  const PortId hvx = dram.add_port("npu.hvx", 26 * GB, npu);
  Done a, b;
  flow_at(sim, dram, 0, dma, 2'250'000, a);
  flow_at(sim, dram, 0, hvx, 2'250'000, b);
  // npu's 45 split fairly: 22.5 each (hvx cap 26 does not bind); 2.25 MB / 22.5 GB/s = 100 us.
  sim.run();
  EXPECT_EQ(a.at, 100'000'000u);
  EXPECT_EQ(b.at, 100'000'000u);
}

TEST(DramModel, TightChildCapLeavesTheRestToItsSibling) {
  Simulator sim;
  DramModel dram(sim, 68 * GB);
  const PortId npu = dram.add_port("npu", 45 * GB);
  const PortId dma = dram.add_port("npu.dma", 60 * GB, npu);
  const PortId hvx = dram.add_port("npu.hvx", 10 * GB, npu);
  Done a, b;
  flow_at(sim, dram, 0, dma, 7'000'000, a);
  flow_at(sim, dram, 0, hvx, 1'000'000, b);
  // hvx at its cap 10, dma gets 45 - 10 = 35. hvx: 1 MB / 10 GB/s = 100 us.
  // dma moved 35 GB/s x 100 us = 3.5 MB; the other 3.5 MB alone at min(60, 45) = 45 GB/s
  //   takes 77'777'777.78 ps -> 77'777'778: dma ends at 177'777'778 ps.
  sim.run();
  EXPECT_EQ(b.at, 100'000'000u);
  EXPECT_EQ(a.at, 177'777'778u);
}

TEST(DramModel, FlowsOnOnePortShareItAndDeparturesSpeedUpTheRest) {
  Simulator sim;
  DramModel dram(sim, 68 * GB);
  const PortId cpu = dram.add_port("cpu", 30 * GB);
  Done a, b, c;
  flow_at(sim, dram, 0, cpu, 100'000, a);
  flow_at(sim, dram, 0, cpu, 250'000, b);
  flow_at(sim, dram, 0, cpu, 400'000, c);
  // Three at 10 GB/s: A's 100 KB take 10 us.  B, C have moved 100 KB each.
  // Two at 15 GB/s: B's remaining 150 KB take 10 us -> 20 us.  C has moved 250 KB.
  // One at 30 GB/s: C's remaining 150 KB take 5 us -> 25 us.  (750 KB / 30 GB/s = 25 us.)
  sim.run();
  EXPECT_EQ(a.at, 10'000'000u);
  EXPECT_EQ(b.at, 20'000'000u);
  EXPECT_EQ(c.at, 25'000'000u);
}

TEST(DramModel, FlowStartingAtAnotherCompletionTickDoesNotShare) {
  Simulator sim;
  DramModel dram(sim, 68 * GB);
  const PortId gpu = dram.add_port("gpu", 40 * GB);
  Done a, b;
  // B's start is queued before A's wake-up, so it runs first at 25 us; A is done by then
  // (1 MB / 40 GB/s = 25 us) and must not take a share of B's bandwidth.
  flow_at(sim, dram, 25 * kMicrosecond, gpu, 1'000'000, b);
  flow_at(sim, dram, 0, gpu, 1'000'000, a);
  sim.run();
  EXPECT_EQ(a.at, 25'000'000u);
  EXPECT_EQ(b.at, 50'000'000u);  // alone at 40 GB/s: 25 us more
}

TEST(DramModel, SameTickCompletionsNotifyInStartOrder) {
  Simulator sim;
  DramModel dram(sim, 68 * GB);
  const PortId gpu = dram.add_port("gpu", 40 * GB);
  const PortId npu = dram.add_port("npu", 20 * GB);
  std::vector<int> order;
  std::vector<Done> d(3);
  for (int i = 0; i < 3; ++i) {
    d[i].order = &order;
    d[i].id = i;
  }
  // At level 20 npu's cap (20) and gpu's cap (2 x 20 = 40) fill together, before the root
  // (3 x 20 = 60 < 68): all three run at 20 GB/s, so 2 MB each end together at 100 us, and are
  // notified in start order npu, gpu, gpu.
  flow_at(sim, dram, 0, npu, 2'000'000, d[0]);
  flow_at(sim, dram, 0, gpu, 2'000'000, d[1]);
  flow_at(sim, dram, 0, gpu, 2'000'000, d[2]);
  sim.run();
  for (const Done& x : d) EXPECT_EQ(x.at, 100'000'000u);
  EXPECT_EQ(order, (std::vector<int>{0, 1, 2}));
}

}  // namespace
}  // namespace socsim::hw
