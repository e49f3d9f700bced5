// The DRAM model driven from coroutines: transfer(), processes killed mid-transfer, teardown
// order, determinism, and argument checks.
#include "sim/hw/memory/dram_model.h"

#include <gtest/gtest.h>

#include <memory>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "tests/unit/memory/dram_test_util.h"

namespace socsim::hw {
namespace {

using testing::Done;
using testing::flow_at;
using testing::GB;

Task<> two_transfers(Simulator& sim, DramModel& dram, PortId p, std::vector<Tick>& log) {
  co_await dram.transfer(p, 1'000'000);
  log.push_back(sim.now());
  co_await dram.transfer(p, 0);  // no event, no time
  log.push_back(sim.now());
  co_await dram.transfer(p, 2'000'000);
  log.push_back(sim.now());
}

TEST(DramModelProcess, TransferCompletesWhenTheLastByteMoves) {
  Simulator sim;
  DramModel dram(sim, 68 * GB);
  const PortId gpu = dram.add_port("gpu", 40 * GB);
  std::vector<Tick> log;
  sim.spawn(two_transfers(sim, dram, gpu, log), "gpu");
  EXPECT_EQ(sim.run(), RunResult::kIdle);
  // 1 MB at 40 GB/s = 25 us, then 2 MB = 50 us more.
  EXPECT_EQ(log, (std::vector<Tick>{25 * kMicrosecond, 25 * kMicrosecond, 75 * kMicrosecond}));
  EXPECT_EQ(dram.total_bytes(), 3'000'000u);
}

Task<> one_transfer(DramModel& dram, PortId p, std::uint64_t bytes) { co_await dram.transfer(p, bytes); }

// A transfer whose duration cannot be represented throws TimeOverflow from the model, and the
// teardown after it touches nothing freed: the flow is taken out again before the caller's frame
// unwinds (ASan: heap-use-after-free in ~DramModel before), whichever is destroyed first, and a
// transfer in flight beside it is cancelled without a throw from its destructor.
TEST(DramModelProcess, AnOverflowingTransferUnwindsCleanly) {
  for (const bool model_first : {false, true}) {
    auto sim = std::make_unique<Simulator>();
    auto dram = std::make_unique<DramModel>(*sim, 1e6);  // 1 MB/s
    const PortId cpu = dram->add_port("cpu", 1e6);
    const PortId gpu = dram->add_port("gpu", 1e6);
    sim->spawn(one_transfer(*dram, gpu, 1000), "small");
    sim->spawn(one_transfer(*dram, cpu, 18'000'000'000'000'000'000ull), "huge");  // 1.8e13 s at 1 MB/s
    EXPECT_THROW(sim->run(), TimeOverflow);
    if (model_first) {
      dram.reset();
      sim.reset();
    } else {
      sim.reset();
      dram.reset();
    }
  }
}

TEST(DramModelProcess, KilledProcessCancelsItsFlowAndFreesBandwidth) {
  Simulator sim;
  DramModel dram(sim, 60 * GB);
  const PortId gpu = dram.add_port("gpu", 40 * GB);
  const PortId npu = dram.add_port("npu", 40 * GB);
  Done a;
  flow_at(sim, dram, 0, gpu, 1'000'000, a);
  sim.spawn(one_transfer(dram, npu, 1'000'000), "npu");
  // Both at 30 GB/s. At 10 us each moved 300 KB; killing the npu process ends its flow there.
  sim.run(10 * kMicrosecond);
  sim.kill_processes();
  EXPECT_EQ(dram.active_flows(), 1u);
  EXPECT_EQ(dram.port_bytes(npu), 300'000u);
  sim.run();
  // gpu alone at 40 GB/s for its other 700 KB = 17.5 us -> 27.5 us.
  EXPECT_EQ(a.at, 27'500'000u);
  EXPECT_EQ(dram.total_bytes(), 1'300'000u);
}

TEST(DramModelProcess, ModelDestroyedBeforeTheSimulatorWithTransfersInFlight) {
  // The usual declaration order: the model dies first, then ~Simulator destroys the suspended
  // process. ASan checks that the frame does not touch the dead model.
  Simulator sim;
  auto dram = std::make_unique<DramModel>(sim, 68 * GB);
  const PortId gpu = dram->add_port("gpu", 40 * GB);
  sim.spawn(one_transfer(*dram, gpu, 1'000'000), "gpu");
  sim.run(kMicrosecond);
  EXPECT_EQ(dram->active_flows(), 1u);
  dram.reset();
}

TEST(DramModelProcess, SimulatorTornDownBeforeTheModel) {
  // kill_processes first (the documented order for units that outlive their users).
  Simulator sim;
  DramModel dram(sim, 68 * GB);
  const PortId gpu = dram.add_port("gpu", 40 * GB);
  sim.spawn(one_transfer(dram, gpu, 1'000'000), "gpu");
  sim.run(kMicrosecond);
  sim.kill_processes();
  EXPECT_EQ(dram.active_flows(), 0u);
  EXPECT_EQ(dram.total_bytes(), 40'000u);  // 1 us at 40 GB/s
}

// A mixed scenario: 4 masters, nested ports, 300 flows at pseudo-random times and sizes.
std::vector<Tick> run_scenario() {
  Simulator sim;
  DramModel dram(sim, 68 * GB, {1.0, 0.93, 0.88, 0.85});
  const PortId npu = dram.add_port("npu", 45 * GB);
  const std::vector<PortId> ports{dram.add_port("cpu", 20 * GB), dram.add_port("gpu", 40 * GB),
                                  dram.add_port("npu.dma", 40 * GB, npu), dram.add_port("npu.hvx", 26 * GB, npu),
                                  dram.add_port("isp", 12 * GB), npu};
  std::mt19937_64 rng(7);
  std::vector<Done> d(300);
  for (auto& x : d) {
    flow_at(sim, dram, rng() % (200 * kMicrosecond), ports[rng() % ports.size()], 1 + rng() % 2'000'000, x);
  }
  sim.run();
  std::vector<Tick> at;
  for (const Done& x : d) at.push_back(x.at);
  return at;
}

TEST(DramModelProcess, SameScenarioGivesIdenticalTicks) {
  const std::vector<Tick> first = run_scenario();
  const std::vector<Tick> second = run_scenario();
  EXPECT_EQ(first, second);
  for (Tick t : first) EXPECT_NE(t, kTickMax);  // every flow finished
}

TEST(DramModelProcess, RejectsBadArguments) {
  Simulator sim;
  EXPECT_THROW(DramModel(sim, 0.0), std::invalid_argument);
  EXPECT_THROW(DramModel(sim, -1.0), std::invalid_argument);
  EXPECT_THROW(DramModel(sim, 68 * GB, {1.0, 0.0}), std::invalid_argument);
  EXPECT_THROW(DramModel(sim, 68 * GB, {1.5}), std::invalid_argument);

  DramModel dram(sim, 68 * GB);
  EXPECT_THROW(dram.add_port("gpu", 0.0), std::invalid_argument);
  EXPECT_THROW(dram.add_port("gpu", -5.0), std::invalid_argument);
  EXPECT_THROW(dram.add_port("gpu.x", 1 * GB, PortId{3}), std::invalid_argument);  // unknown parent
  const PortId gpu = dram.add_port("gpu", 40 * GB);
  dram.add_port("npu", 45 * GB);
  EXPECT_THROW(dram.add_port("gpu", 40 * GB), std::invalid_argument);  // duplicate name
  EXPECT_THROW(dram.start_flow(7, 100, nullptr, nullptr), std::invalid_argument);
  EXPECT_THROW((void)dram.transfer(7, 100), std::invalid_argument);
  EXPECT_THROW((void)dram.port_bytes(7), std::invalid_argument);
  EXPECT_THROW((void)dram.port_busy(7), std::invalid_argument);

  EXPECT_EQ(dram.port("gpu"), gpu);
  try {
    (void)dram.port("dsp");
    FAIL() << "expected std::out_of_range";
  } catch (const std::out_of_range& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("dsp"), std::string::npos);
    EXPECT_NE(msg.find("gpu, npu"), std::string::npos);
  }
  EXPECT_EQ(dram.port_names(), (std::vector<std::string>{"gpu", "npu"}));
  EXPECT_DOUBLE_EQ(dram.peak_bytes_per_s(), 68 * GB);
}

}  // namespace
}  // namespace socsim::hw
