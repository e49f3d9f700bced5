// The DRAM bandwidth timeline stays bounded however long a run is, and a coarsened timeline still
// integrates to the bytes moved (samples are time-weighted means over their intervals).
#include <gtest/gtest.h>

#include <deque>

#include "sim/hw/memory/dram_model.h"
#include "tests/unit/memory/dram_test_util.h"

namespace socsim::hw {
namespace {

using testing::Done;
using testing::flow_at;
using testing::GB;

// Bytes under the timeline's step function from its first sample to `end`.
double integral(const std::vector<DramModel::Sample>& tl, Tick end) {
  double bytes = 0;
  for (std::size_t i = 0; i < tl.size(); ++i) {
    const Tick b = i + 1 < tl.size() ? tl[i + 1].time : end;
    bytes += tl[i].total_bps * static_cast<double>(b - tl[i].time) / 1e12;
  }
  return bytes;
}

TEST(DramTimelineBound, ManyFlowsStayUnderTheLimitAndKeepTheirBytes) {
  Simulator sim;
  DramModel dram(sim, 60 * GB);
  const PortId cpu = dram.add_port("cpu", 40 * GB);
  const PortId gpu = dram.add_port("gpu", 40 * GB);
  constexpr std::size_t kLimit = 64;
  dram.record_timeline(true, kLimit);
  // 2000 flows of 40 KB, one every 1.5 us on alternating ports (1 us each alone): busy and idle
  // stretches and overlaps, thousands of recomputations.
  std::deque<Done> done(2000);
  std::uint64_t sum = 0;
  for (std::size_t i = 0; i < done.size(); ++i) {
    flow_at(sim, dram, static_cast<Tick>(i) * 1'500'000, i % 2 ? gpu : cpu, 40'000 + i, done[i]);
    sum += 40'000 + i;
  }
  sim.run();
  const auto& tl = dram.timeline();
  EXPECT_LE(tl.size(), kLimit);
  EXPECT_GE(tl.size(), kLimit / 4);  // coarsened, not emptied
  for (std::size_t i = 1; i < tl.size(); ++i) EXPECT_LT(tl[i - 1].time, tl[i].time) << i;
  EXPECT_EQ(dram.total_bytes(), sum);
  EXPECT_NEAR(integral(tl, sim.now()), static_cast<double>(sum), 1e-6 * static_cast<double>(sum));
  // Each port's share too, and the means stay within the peak.
  double cpu_bytes = 0;
  for (std::size_t i = 0; i < tl.size(); ++i) {
    const Tick b = i + 1 < tl.size() ? tl[i + 1].time : sim.now();
    cpu_bytes += tl[i].port_bps[cpu] * static_cast<double>(b - tl[i].time) / 1e12;
    EXPECT_LE(tl[i].total_bps, 60 * GB * (1 + 1e-12)) << i;
  }
  EXPECT_NEAR(cpu_bytes, static_cast<double>(dram.port_bytes(cpu)), 1e-6 * static_cast<double>(sum));
}

TEST(DramTimelineBound, UnderTheLimitEverySampleIsKept) {
  Simulator sim;
  DramModel dram(sim, 60 * GB);
  const PortId cpu = dram.add_port("cpu", 40 * GB);
  dram.record_timeline(true, 64);
  std::deque<Done> done(10);
  for (std::size_t i = 0; i < done.size(); ++i) flow_at(sim, dram, static_cast<Tick>(i) * 2'000'000, cpu, 40'000, done[i]);
  sim.run();
  // A flow alone takes 1 us: on at 40 GB/s, off, ten times: 20 samples, none merged.
  ASSERT_EQ(dram.timeline().size(), 20u);
  EXPECT_DOUBLE_EQ(dram.timeline()[0].total_bps, 40 * GB);
  EXPECT_DOUBLE_EQ(dram.timeline()[1].total_bps, 0.0);
}

}  // namespace
}  // namespace socsim::hw
