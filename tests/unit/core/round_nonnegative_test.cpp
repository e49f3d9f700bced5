// round_nonnegative (sim/core/time.h): the integer trick gives exactly (equal values) std::round, std::ceil and
// |x - std::round(x)| over [0, 2^64), at the edges (halves, an ulp either side of an integer, 2^52
// and 2^53 where the fraction runs out, near the top) and on random values at every magnitude.
#include "sim/core/time.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <vector>

namespace socsim {
namespace {

void expect_as_libm(double x) {
  const RoundedUp r = round_nonnegative(x);
  const double nearest = std::round(x);
  EXPECT_EQ(r.nearest, static_cast<std::uint64_t>(nearest)) << "x = " << x;
  EXPECT_EQ(r.ceil, static_cast<std::uint64_t>(std::ceil(x))) << "x = " << x;
  EXPECT_EQ(r.distance, std::fabs(x - nearest)) << "x = " << x;  // exactly, not within a tolerance
}

TEST(RoundNonnegative, EdgesAsLibm) {
  std::vector<double> xs = {0.0, -0.0, 0.25, 0.5, 1.0, 1.5, 2.5, 0.49999999999999994, 0.9999999, 1e-300, 3.0000001, 2.9999999};
  for (const double base : {1.0, 7.0, 1e6, 4503599627370496.0 /*2^52*/, 9007199254740992.0 /*2^53*/, 9.2e18, 1.7e19}) {
    xs.push_back(base);
    xs.push_back(std::nextafter(base, 0.0));
    xs.push_back(std::nextafter(base, 2 * base));
    xs.push_back(base + 0.5);
  }
  xs.push_back(std::nextafter(18446744073709551616.0 /*2^64*/, 0.0));
  for (const double x : xs) expect_as_libm(x);
}

TEST(RoundNonnegative, RandomValuesAtEveryMagnitudeAsLibm) {
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> mantissa(1.0, 2.0);
  for (int e = -30; e < 64; ++e) {
    for (int i = 0; i < 2000; ++i) {
      const double x = std::ldexp(mantissa(rng), e);
      if (x >= 18446744073709551616.0) continue;
      expect_as_libm(x);
    }
  }
}

TEST(RoundNonnegative, DurationsAsBeforeNearAnInteger) {
  // seconds_to_ticks_ceil's noise guard: within 1e-6 ps of an integer is that integer.
  EXPECT_EQ(seconds_to_ticks_ceil(1e-12 * 3), 3u);
  EXPECT_EQ(seconds_to_ticks_ceil(3.0000001e-12), 3u);  // 1e-7 ps off
  EXPECT_EQ(seconds_to_ticks_ceil(3.00001e-12), 4u);    // 1e-5 ps off
  EXPECT_EQ(seconds_to_ticks_ceil(0.0), 0u);
}

}  // namespace
}  // namespace socsim
