#include "sim/core/resource.h"

#include <gtest/gtest.h>

#include <vector>

namespace socsim {
namespace {

Task<> use(Simulator& sim, Resource& r, std::uint32_t units, Tick hold, int id, std::vector<std::pair<int, Tick>>& log) {
  auto lease = co_await r.acquire(units);
  log.push_back({id, sim.now()});
  co_await sim.delay(hold);
}

TEST(Resource, FifoGrantsInRequestOrder) {
  Simulator sim;
  Resource hmx(sim, "hmx", 1);
  std::vector<std::pair<int, Tick>> log;
  for (int i = 0; i < 3; ++i) sim.spawn(use(sim, hmx, 1, 10, i, log), "user");
  sim.run();
  // One unit, each holds 10 ps: grants at 0, 10, 20 in spawn order.
  EXPECT_EQ(log, (std::vector<std::pair<int, Tick>>{{0, 0}, {1, 10}, {2, 20}}));
  EXPECT_EQ(hmx.busy().busy(sim.now()), 30u);
  EXPECT_EQ(hmx.grants(), 3u);
}

TEST(Resource, LargeRequestAtHeadIsNotOvertaken) {
  Simulator sim;
  Resource cores(sim, "cores", 4);
  std::vector<std::pair<int, Tick>> log;
  sim.spawn(use(sim, cores, 3, 10, 0, log), "a");  // t=0: takes 3 of 4
  sim.spawn(use(sim, cores, 4, 10, 1, log), "b");  // waits for all 4 (t=10)
  sim.spawn(use(sim, cores, 1, 10, 2, log), "c");  // 1 free at t=0, but FIFO: waits behind b
  sim.run();
  EXPECT_EQ(log, (std::vector<std::pair<int, Tick>>{{0, 0}, {1, 10}, {2, 20}}));
}

TEST(Resource, TimeWeightedUnitsInUse) {
  Simulator sim;
  Resource r(sim, "hvx", 4);
  std::vector<std::pair<int, Tick>> log;
  sim.spawn(use(sim, r, 2, 100, 0, log), "a");  // 2 units for [0,100)
  sim.spawn(use(sim, r, 1, 50, 1, log), "b");   // 1 unit for [0,50)
  sim.run();
  // integral = 2*100 + 1*50 = 250 unit-ps over 100 ps -> average 2.5
  EXPECT_DOUBLE_EQ(r.in_use().average(sim.now()), 2.5);
  EXPECT_DOUBLE_EQ(r.in_use().max(), 3.0);
}

TEST(Resource, OversizedRequestIsAnError) {
  Simulator sim;
  Resource r(sim, "dma", 2);
  std::vector<std::pair<int, Tick>> log;
  sim.spawn(use(sim, r, 3, 1, 0, log), "greedy");
  EXPECT_THROW(sim.run(), std::invalid_argument);
}

TEST(Resource, BlockedWaiterIsFreedAtTeardown) {
  std::vector<std::pair<int, Tick>> log;
  Simulator sim;
  Resource r(sim, "hmx", 1);
  sim.spawn(use(sim, r, 1, kTickMax / 2, 0, log), "holder");
  sim.spawn(use(sim, r, 1, 1, 1, log), "waiter");
  EXPECT_EQ(sim.run(1000), RunResult::kTimeLimit);
  sim.kill_processes();  // the holder's lease is returned without scheduling anything
  EXPECT_EQ(sim.live_processes(), 0u);
}

}  // namespace
}  // namespace socsim
