// compute_cycles_per_thread: the cycle count of a CPU task's arithmetic, and its 64-bit edge.
#include <gtest/gtest.h>

#include <stdexcept>

#include "sim/core/time.h"
#include "sim/hw/cpu/cpu_task.h"

namespace socsim::hw {
namespace {

TEST(CpuTaskCycles, SplitsOpsOverThreadsRoundingUp) {
  EXPECT_EQ(compute_cycles_per_thread(1000.0, 10.0, 1), 100u);
  EXPECT_EQ(compute_cycles_per_thread(1000.0, 10.0, 3), 34u);  // 33.3 cycles: a cycle begun is spent
  EXPECT_EQ(compute_cycles_per_thread(0.0, 10.0, 4), 0u);
}

TEST(CpuTaskCycles, PastSixtyFourBitsIsATimeOverflowNotAWrappedCount) {
  // 2^64 cycles and more: the cast to 64 bits was undefined (a 2^24-cubed matmul reported 1.5 ms).
  EXPECT_THROW(compute_cycles_per_thread(1e30, 1.0, 1), TimeOverflow);
  EXPECT_THROW(compute_cycles_per_thread(2.0e19, 1.0, 1), TimeOverflow);  // just past 2^64 (1.8e19)
  EXPECT_GT(compute_cycles_per_thread(9.0e18, 1.0, 1), 8999999999000000000u);  // below 2^64: counted
  EXPECT_THROW(compute_cycles_per_thread(-1.0, 1.0, 1), std::invalid_argument);
}

}  // namespace
}  // namespace socsim::hw
