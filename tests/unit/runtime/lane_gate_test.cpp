// LaneGate (sim/runtime/lane_gate.h) on its own: one holder at a time, the pick made after the
// current instant's events among every job waiting then, waiters resumed in events of their own,
// and a job that waits twice refused.
#include "sim/runtime/lane_gate.h"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "sim/core/task.h"

namespace socsim::runtime {
namespace {

struct Log {
  std::vector<std::string> lines;
};

Task<> use(Simulator& sim, LaneGate& gate, std::uint32_t job, Tick hold, Log& log) {
  co_await gate.acquire(job);
  log.lines.push_back("job " + std::to_string(job) + " at " + std::to_string(sim.now()));
  co_await sim.delay(hold);
  gate.release();
}

TEST(LaneGate, OneHolderAtATimeAndThePickSeesEveryJobReadyAtThatInstant) {
  Simulator sim;
  std::vector<std::vector<std::uint32_t>> seen;
  // Picks the highest job id among those waiting.
  LaneGate gate(sim, [&](const std::vector<std::uint32_t>& waiting) {
    seen.push_back(waiting);
    std::size_t best = 0;
    for (std::size_t i = 1; i < waiting.size(); ++i) {
      if (waiting[i] > waiting[best]) best = i;
    }
    return best;
  });
  Log log;
  for (std::uint32_t j : {3u, 7u, 5u}) sim.spawn(use(sim, gate, j, 10, log), "job" + std::to_string(j));
  sim.run();
  EXPECT_EQ(log.lines, (std::vector<std::string>{"job 7 at 0", "job 5 at 10", "job 3 at 20"}));
  ASSERT_EQ(seen.size(), 3u);
  EXPECT_EQ(seen[0], (std::vector<std::uint32_t>{3, 7, 5}));  // all three arrived at t = 0
  EXPECT_EQ(seen[1], (std::vector<std::uint32_t>{3, 5}));
  EXPECT_EQ(seen[2], (std::vector<std::uint32_t>{3}));
  EXPECT_FALSE(gate.busy());
  // Each waiter resumes in an event of its own, after the pick's: three spawns, then per job a
  // pick, its resume and the end of its hold (12; resuming inside the pick would be 9).
  EXPECT_EQ(sim.events_fired(), 12u);
}

TEST(LaneGate, AJobWaitingTwiceAndAPickOutOfRangeAreErrors) {
  Simulator sim;
  LaneGate gate(sim, [](const std::vector<std::uint32_t>&) { return std::size_t{0}; });
  Log log;
  sim.spawn(use(sim, gate, 4, 10, log), "first");
  sim.run(5);  // job 4 holds the lane
  sim.spawn(use(sim, gate, 9, 1, log), "waits");
  sim.run(6);  // job 9 waits
  EXPECT_THROW((void)gate.acquire(9), std::logic_error);
  sim.run();
  EXPECT_EQ(log.lines, (std::vector<std::string>{"job 4 at 0", "job 9 at 10"}));

  Simulator sim2;
  LaneGate bad(sim2, [](const std::vector<std::uint32_t>& w) { return w.size(); });
  sim2.spawn(use(sim2, bad, 1, 1, log), "bad pick");
  EXPECT_THROW(sim2.run(), std::logic_error);
}

}  // namespace
}  // namespace socsim::runtime
