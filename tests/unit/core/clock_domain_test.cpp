#include "sim/core/clock_domain.h"

#include <gtest/gtest.h>

namespace socsim {
namespace {

TEST(ClockDomain, WholePicosecondPeriods) {
  ClockDomain c("npu", 1'000'000'000);  // 1 GHz -> 1000 ps per cycle
  EXPECT_EQ(c.cycles_to_ticks(0), 0u);
  EXPECT_EQ(c.cycles_to_ticks(1), 1000u);
  EXPECT_EQ(c.cycles_to_ticks(320), 320'000u);
  EXPECT_EQ(c.ticks_to_cycles(320'000), 320u);
}

TEST(ClockDomain, FractionalPeriodRoundsUpPerConversionNotPerCycle) {
  ClockDomain c("cpu", 3'000'000'000);  // 3 GHz -> 333.33 ps per cycle
  EXPECT_EQ(c.cycles_to_ticks(1), 334u);  // ceil(333.33)
  EXPECT_EQ(c.cycles_to_ticks(3), 1000u);  // exact: 3 cycles = 1 ns, no accumulated rounding
  EXPECT_EQ(c.cycles_to_ticks(4), 1334u);  // ceil(1333.33)
  EXPECT_EQ(c.ticks_to_cycles(333), 0u);   // a partial cycle has not completed
  EXPECT_EQ(c.ticks_to_cycles(334), 1u);
  EXPECT_EQ(c.ticks_to_cycles(1000), 3u);
}

TEST(ClockDomain, LargeCountsStayExact) {
  ClockDomain c("npu", 750'000'000);  // 1333.33 ps per cycle
  // 3e9 cycles at 750 MHz = 4 s exactly.
  EXPECT_EQ(c.cycles_to_ticks(3'000'000'000ULL), 4 * kSecond);
}

TEST(ClockDomain, NextEdge) {
  ClockDomain c("cpu", 3'000'000'000);  // edges at 0, 334, 667, 1000, ...
  EXPECT_EQ(c.next_edge(0), 0u);
  EXPECT_EQ(c.next_edge(1), 334u);
  EXPECT_EQ(c.next_edge(334), 334u);
  EXPECT_EQ(c.next_edge(335), 667u);
  EXPECT_EQ(c.next_edge(999), 1000u);
}

TEST(ClockDomain, RejectsZeroFrequency) { EXPECT_THROW(ClockDomain("x", 0), std::invalid_argument); }

TEST(Time, SecondsToTicksRoundsUp) {
  EXPECT_EQ(seconds_to_ticks_ceil(0.0), 0u);
  EXPECT_EQ(seconds_to_ticks_ceil(1e-12), 1u);
  EXPECT_EQ(seconds_to_ticks_ceil(1.5e-12), 2u);
  EXPECT_EQ(seconds_to_ticks_ceil(400e-6), 400 * kMicrosecond);  // no 399999999.99 artefacts
  EXPECT_THROW(seconds_to_ticks_ceil(-1.0), std::invalid_argument);
}

}  // namespace
}  // namespace socsim
