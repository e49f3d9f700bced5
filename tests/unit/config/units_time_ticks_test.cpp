// parse_time_ticks works on the decimal digits, so results are exact integers of picoseconds.
#include <gtest/gtest.h>

#include <stdexcept>

#include "sim/config/units.h"

namespace socsim::config {
namespace {

TEST(ConfigTimeTicks, EveryUnit) {
  EXPECT_EQ(parse_time_ticks("7 ps"), 7u);
  EXPECT_EQ(parse_time_ticks("7 ns"), 7'000u);
  EXPECT_EQ(parse_time_ticks("400 us"), 400'000'000u);  // 400 * 10^6 ps
  EXPECT_EQ(parse_time_ticks("3 ms"), 3'000'000'000u);
  EXPECT_EQ(parse_time_ticks("2 s"), 2'000'000'000'000u);  // 2 * 10^12 ps
}

TEST(ConfigTimeTicks, FractionsAreExact) {
  EXPECT_EQ(parse_time_ticks("1.5 ns"), 1'500u);
  EXPECT_EQ(parse_time_ticks("0.001 ns"), 1u);
  EXPECT_EQ(parse_time_ticks("2.000001 s"), 2'000'001'000'000u);
  // 0.1 and 0.7 have no exact double; the digit arithmetic must not care.
  EXPECT_EQ(parse_time_ticks("0.1 ns"), 100u);
  EXPECT_EQ(parse_time_ticks("0.7 us"), 700'000u);
  EXPECT_EQ(parse_time_ticks("1.000000000001 s"), 1'000'000'000'001u);
}

TEST(ConfigTimeTicks, ScientificNotation) {
  EXPECT_EQ(parse_time_ticks("1e3 ns"), 1'000'000u);
  EXPECT_EQ(parse_time_ticks("2.5e-3 s"), 2'500'000'000u);  // 2.5 ms
  EXPECT_EQ(parse_time_ticks("15e-1 ns"), 1'500u);
  EXPECT_EQ(parse_time_ticks("1E2ps"), 100u);
}

TEST(ConfigTimeTicks, RoundsToNearestPicosecond) {
  EXPECT_EQ(parse_time_ticks("1.4 ps"), 1u);
  EXPECT_EQ(parse_time_ticks("1.5 ps"), 2u);  // halves round up
  EXPECT_EQ(parse_time_ticks("0.0004 ns"), 0u);
  EXPECT_EQ(parse_time_ticks("0.0005 ns"), 1u);
  EXPECT_EQ(parse_time_ticks("1e-20 s"), 0u);
}

TEST(ConfigTimeTicks, ZeroAndLimits) {
  EXPECT_EQ(parse_time_ticks("0 s"), 0u);
  // uint64 max = 18446744073709551615 ps.
  EXPECT_EQ(parse_time_ticks("18446744073709551615 ps"), 18'446'744'073'709'551'615u);
  EXPECT_THROW(parse_time_ticks("18446744073709551616 ps"), std::invalid_argument);
  EXPECT_THROW(parse_time_ticks("1e9 s"), std::invalid_argument);  // 10^21 ps
  EXPECT_THROW(parse_time_ticks("1e99999999 s"), std::invalid_argument);
}

TEST(ConfigTimeTicks, Rejections) {
  EXPECT_THROW(parse_time_ticks("-1 ns"), std::invalid_argument);
  EXPECT_THROW(parse_time_ticks("5"), std::invalid_argument);
  EXPECT_THROW(parse_time_ticks("5 GHz"), std::invalid_argument);
  EXPECT_THROW(parse_time_ticks("5 nsx"), std::invalid_argument);
  EXPECT_THROW(parse_time_ticks(""), std::invalid_argument);
  EXPECT_THROW(parse_time_ticks("1e ns"), std::invalid_argument);
}

}  // namespace
}  // namespace socsim::config
