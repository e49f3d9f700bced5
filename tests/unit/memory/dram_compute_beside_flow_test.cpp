// DramModel::compute_beside_flow: a compute phase beside a flow, without when_all's frames, and
// DramModel::flow: transfer() without its coroutine frame. They must give exactly what when_all
// over sim.delay_task and transfer (or the one non-empty part awaited alone), and transfer, give (the GPU model swapped
// one for the other and every report must stay byte for byte): the same completion ticks, the
// same order of everything that wakes at one tick, the same number of events. Also: hand-computed
// times, and a frame destroyed mid-flow cancels its flow.
#include "sim/hw/memory/dram_model.h"

#include <gtest/gtest.h>

#include <memory>
#include <random>
#include <utility>
#include <vector>

#include "sim/core/sync.h"
#include "tests/unit/memory/dram_test_util.h"

namespace socsim::hw {
namespace {

using testing::GB;

struct Wake {
  int who;
  Tick at;
  bool operator==(const Wake&) const = default;
};

Task<> both(Simulator& sim, DramModel& dram, Tick compute, PortId port, std::uint64_t bytes, bool use_awaiter) {
  if (use_awaiter) {
    co_await dram.compute_beside_flow(compute, port, bytes);
  } else if (bytes == 0) {  // what the GPU model ran before: one part alone, or both under when_all
    co_await sim.delay(compute);
  } else if (compute == 0) {
    co_await dram.transfer(port, bytes);
  } else {
    TaskList parts;
    parts.push_back(sim.delay_task(compute));
    parts.push_back(dram.transfer(port, bytes));
    co_await when_all(sim, std::move(parts));
  }
}

// A kernel stream: each step computes beside its traffic; every wake-up is logged in order.
Task<> stream(Simulator& sim, DramModel& dram, PortId port, int who, std::uint64_t seed, bool use_awaiter, std::vector<Wake>& log) {
  std::mt19937_64 rng(seed);
  for (int i = 0; i < 40; ++i) {
    // Zero compute, zero bytes and equal durations (ties at one tick) all occur.
    const Tick compute = (rng() % 4 == 0) ? 0 : (rng() % 8) * kMicrosecond;
    const std::uint64_t bytes = (rng() % 5 == 0) ? 0 : (rng() % 4) * 100'000;
    co_await both(sim, dram, compute, port, bytes, use_awaiter);
    log.push_back({who, sim.now()});
    const std::uint64_t alone = (rng() % 3 == 0) ? 0 : (rng() % 3) * 50'000;  // a flow awaited by itself
    if (use_awaiter) {
      co_await dram.flow(port, alone);
    } else {
      co_await dram.transfer(port, alone);
    }
    log.push_back({who, sim.now()});
    if (rng() % 3 == 0) co_await sim.delay(0);  // yields among same-tick events
  }
}

struct Outcome {
  std::vector<Wake> log;
  std::uint64_t events = 0;
  std::uint64_t bytes = 0;
};

Outcome run_streams(bool use_awaiter) {
  Simulator sim;
  DramModel dram(sim, 60 * GB, {1.0, 0.9, 0.85});
  const PortId gpu = dram.add_port("gpu", 40 * GB);
  const PortId npu = dram.add_port("npu", 30 * GB);
  const PortId cpu = dram.add_port("cpu", 20 * GB);
  Outcome o;
  int who = 0;
  for (const PortId p : {gpu, gpu, npu, cpu}) {
    sim.spawn(stream(sim, dram, p, who, 11 + static_cast<std::uint64_t>(who), use_awaiter, o.log), "s" + std::to_string(who));
    ++who;
  }
  EXPECT_EQ(sim.run(), RunResult::kIdle);
  o.events = sim.events_fired();
  o.bytes = dram.total_bytes();
  return o;
}

TEST(ComputeBesideFlow, SameTicksOrderAndEventsAsWhenAllAndTransfer) {
  const Outcome joined = run_streams(false), awaited = run_streams(true);
  ASSERT_EQ(joined.log.size(), 320u);
  EXPECT_EQ(awaited.log, joined.log);
  EXPECT_EQ(awaited.events, joined.events);
  EXPECT_EQ(awaited.bytes, joined.bytes);
}

TEST(ComputeBesideFlow, DoneWhenTheLongerPartIs) {
  for (const auto& [compute, want] : std::vector<std::pair<Tick, Tick>>{{10 * kMicrosecond, 25 * kMicrosecond},
                                                                        {30 * kMicrosecond, 30 * kMicrosecond},
                                                                        {0, 25 * kMicrosecond}}) {
    Simulator sim;
    DramModel dram(sim, 68 * GB);
    const PortId gpu = dram.add_port("gpu", 40 * GB);
    Tick end = 0;
    auto run = [](Simulator& s, DramModel& d, PortId p, Tick c, Tick& e) -> Task<> {
      co_await d.compute_beside_flow(c, p, 1'000'000);  // 1 MB at 40 GB/s: 25 us
      e = s.now();
    };
    sim.spawn(run(sim, dram, gpu, compute, end), "k");
    EXPECT_EQ(sim.run(), RunResult::kIdle);
    EXPECT_EQ(end, want);
    EXPECT_EQ(dram.total_bytes(), 1'000'000u);
  }
  // No bytes: the compute alone.
  Simulator sim;
  DramModel dram(sim, 68 * GB);
  const PortId gpu = dram.add_port("gpu", 40 * GB);
  sim.spawn(both(sim, dram, 10 * kMicrosecond, gpu, 0, true), "k");
  EXPECT_EQ(sim.run(), RunResult::kIdle);
  EXPECT_EQ(sim.now(), 10 * kMicrosecond);
  EXPECT_EQ(dram.total_bytes(), 0u);
}

TEST(ComputeBesideFlow, AFrameDestroyedMidFlowCancelsIt) {
  Simulator sim;
  DramModel dram(sim, 60 * GB);
  const PortId gpu = dram.add_port("gpu", 40 * GB);
  const PortId npu = dram.add_port("npu", 40 * GB);
  testing::Done a;
  testing::flow_at(sim, dram, 0, gpu, 1'000'000, a);
  sim.spawn(both(sim, dram, 50 * kMicrosecond, npu, 1'000'000, true), "npu");
  // Both flows at 30 GB/s; at 10 us the npu's has moved 300 KB and ends with its frame.
  sim.run(10 * kMicrosecond);
  sim.kill_processes();
  EXPECT_EQ(dram.active_flows(), 1u);
  EXPECT_EQ(dram.port_bytes(npu), 300'000u);
  // The compute's end (due at 50 us) went with the frame; what is left are the DRAM's wake-ups
  // (a plain build would not notice a leftover call into the frame: the frame pool keeps its memory).
  EXPECT_EQ(sim.describe_pending(8).find("awaiter"), std::string::npos) << sim.describe_pending(8);
  sim.run();
  EXPECT_EQ(a.at, 27'500'000u);  // the gpu's other 700 KB alone at 40 GB/s
}

TEST(ComputeBesideFlow, ModelDestroyedFirstWithAFlowInFlight) {
  // ASan checks that the destroyed frame does not touch the dead model.
  Simulator sim;
  auto dram = std::make_unique<DramModel>(sim, 68 * GB);
  const PortId gpu = dram->add_port("gpu", 40 * GB);
  sim.spawn(both(sim, *dram, kMicrosecond, gpu, 1'000'000, true), "gpu");
  sim.run(2 * kMicrosecond);
  EXPECT_EQ(dram->active_flows(), 1u);
  dram.reset();
}

TEST(ComputeBesideFlow, AnUnknownPortFailsAtTheCall) {
  Simulator sim;
  DramModel dram(sim, 68 * GB);
  EXPECT_THROW((void)dram.compute_beside_flow(kMicrosecond, 3, 100), std::invalid_argument);
  EXPECT_THROW((void)dram.flow(3, 100), std::invalid_argument);
}

}  // namespace
}  // namespace socsim::hw
