// Density from attention scores (the paper's worked example) and level assignment under the
// global ratio; linear fits of the profiled costs.
#include "sim/systems/llms/compression_levels.h"

#include <gtest/gtest.h>

#include <cmath>

#include <algorithm>

#include <numeric>

#include <random>

#include "sim/systems/llms/service_costs.h"

namespace socsim::systems::llms {
namespace {

TEST(Density, ColumnSumOverRowsThatSeeIt) {
  // One 3x3 causal map. Column 0 is seen by 3 rows: (0.3 + 0.5 + 0.1) / 3 = 0.3 (the paper's example);
  // column 1 by 2 rows: (0.5 + 0.3) / 2 = 0.4; column 2 by 1 row: 0.6.
  const float a[9] = {0.3f, 0, 0, 0.5f, 0.5f, 0, 0.1f, 0.3f, 0.6f};
  const auto d = token_density({a}, 3, 3);
  EXPECT_NEAR(d[0], 0.3, 1e-7);
  EXPECT_NEAR(d[1], 0.4, 1e-7);
  EXPECT_NEAR(d[2], 0.6, 1e-7);
  const auto c = chunk_density(d, 2);
  ASSERT_EQ(c.size(), 2u);
  EXPECT_NEAR(c[0], 0.35, 1e-7);
  EXPECT_NEAR(c[1], 0.6, 1e-7);
}

TEST(Density, QueriesAreTheLastRowsOfAnExtension) {
  // 2 new query rows over 3 keys: row 0 is position 1 (sees keys 0, 1), row 1 position 2.
  // Column 0 seen by 2 rows, column 2 by 1 row.
  const float a[6] = {0.4f, 0.6f, 0, 0.2f, 0.2f, 0.6f};
  const auto d = token_density({a, a}, 2, 3);
  EXPECT_NEAR(d[0], 0.3, 1e-7);
  EXPECT_NEAR(d[1], 0.4, 1e-7);
  EXPECT_NEAR(d[2], 0.6, 1e-7);
}

double kept(const std::vector<int>& level) {
  double s = 0;
  for (int l : level) s += kLevelRatio[l];
  return s / static_cast<double>(level.size());
}

TEST(AssignLevels, MeetsTheGlobalRatioDensestKeepMostBits) {
  // 8 chunks, ratio 0.5: 4 n8 + 2 n4 + n2 <= 16. Kept information sum ratio x D with densities
  // 9 8 1 1 1 1 1 1: n8=2 (budget 16 - 8 = 8 quarters for 6 chunks -> n4 = 2, n2 = 4):
  // 17 + 0.5 x 2 + 0.25 x 4 = 19; n8=1: n4 = 5, n2 = 2: 9 + 0.5 x 6 + 0.25 x 2 = 12.5; n8=0: n4=8: 10.5.
  const std::vector<double> d = {1, 9, 1, 8, 1, 1, 1, 1};
  const auto level = assign_levels(d, 0.5);
  EXPECT_EQ(level[1], 0);
  EXPECT_EQ(level[3], 0);
  int n4 = 0, n2 = 0;
  for (int l : level) {
    n4 += l == 1;
    n2 += l == 2;
  }
  EXPECT_EQ(n4, 2);
  EXPECT_EQ(n2, 4);
  EXPECT_DOUBLE_EQ(kept(level), 0.5);
}

TEST(AssignLevels, UniformDensitiesStillMeetTheRatioAndFloorsHold) {
  const std::vector<double> d(10, 1.0);
  const auto level = assign_levels(d, 0.5);
  EXPECT_LE(kept(level), 0.5 + 1e-12);
  EXPECT_GE(kept(level), 0.5 - 0.25 / 10 - 1e-12);  // within one quarter-chunk of rounding
  std::vector<int> floor(10, 2);                    // already at 2/8: nothing gets bits back
  const auto again = assign_levels(d, 0.5, floor);
  for (int l : again) EXPECT_EQ(l, 2);
  EXPECT_EQ(assign_levels(d, 1.0), std::vector<int>(10, 0));
}

TEST(AssignLevels, FloorsFreeRoomForTheRestSoTheRatioHolds) {
  // 8 equal chunks at ratio 0.5 (16 quarters); chunks 0 and 1 are held at 2/8 by their floors
  // (2 quarters), which leaves 14 quarters for the other six instead of the 12 they would get if
  // the floors were applied after the assignment: the mean kept ratio stays 0.5.
  const std::vector<double> d(8, 1.0);
  const std::vector<int> floor = {2, 2, 0, 0, 0, 0, 0, 0};
  const auto level = assign_levels(d, 0.5, floor);
  EXPECT_EQ(level[0], 2);
  EXPECT_EQ(level[1], 2);
  EXPECT_DOUBLE_EQ(kept(level), 0.5);
}

TEST(AssignLevels, EqualsBruteForceWithFloors) {
  // Every level vector that respects the floors and the budget, on random densities and floors.
  std::mt19937 rng(3);
  std::lognormal_distribution<double> dens(0.0, 1.0);
  std::uniform_int_distribution<int> fl(0, 2), size(1, 7);
  for (int trial = 0; trial < 200; ++trial) {
    const auto n = static_cast<std::size_t>(size(rng));
    std::vector<double> d(n);
    std::vector<int> floor(n);
    for (std::size_t i = 0; i < n; ++i) d[i] = dens(rng), floor[i] = trial % 3 == 0 ? 0 : fl(rng);
    const double g = 0.25 + 0.75 * static_cast<double>(trial % 7) / 6.0;
    const auto value = [&](const std::vector<int>& l) {
      double v = 0;
      for (std::size_t i = 0; i < n; ++i) v += kLevelRatio[l[i]] * d[i];
      return v;
    };
    double best = -1;
    std::vector<int> l(n, 0);
    std::size_t combos = 1;
    for (std::size_t i = 0; i < n; ++i) combos *= 3;
    for (std::size_t c = 0; c < combos; ++c) {
      std::size_t x = c;
      bool ok = true;
      for (std::size_t i = 0; i < n; ++i, x /= 3) {
        l[i] = static_cast<int>(x % 3);
        ok = ok && l[i] >= floor[i];
      }
      if (ok && kept(l) <= g + 1e-9) best = std::max(best, value(l));
    }
    const auto got = assign_levels(d, g, floor);
    for (std::size_t i = 0; i < n; ++i) EXPECT_GE(got[i], floor[i]);
    ASSERT_GE(best, 0);  // all at 2/8 always fits (g >= 0.25)
    EXPECT_LE(kept(got), g + 1e-9) << trial;
    EXPECT_NEAR(value(got), best, 1e-9 * best) << trial;
  }
}

// The direct scan the prefix sums replaced: for every n8, rank every chunk again (O(n^2)).
std::vector<int> reference_levels(const std::vector<double>& density, double g, const std::vector<int>& floor) {
  const std::size_t n = density.size();
  std::vector<std::size_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return density[a] > density[b]; });
  const double budget = 4.0 * g * static_cast<double>(n) + 1e-9;
  std::size_t eligible8 = 0;
  for (int f : floor) eligible8 += f == 0 ? 1 : 0;
  std::vector<int> level(n, 2), best_level(n, 2);
  double best = -1;
  for (std::size_t n8 = 0; n8 <= eligible8; ++n8) {
    const double room = budget - 3.0 * static_cast<double>(n8) - static_cast<double>(n);
    if (room < 0) break;
    auto n4 = static_cast<std::size_t>(std::floor(room));
    std::size_t taken8 = 0;
    double value = 0;
    for (std::size_t r = 0; r < n; ++r) {
      const std::size_t i = order[r];
      if (floor[i] == 0 && taken8 < n8) {
        level[i] = 0, ++taken8;
      } else if (floor[i] <= 1 && n4 > 0) {
        level[i] = 1, --n4;
      } else {
        level[i] = 2;
      }
      value += kLevelRatio[level[i]] * density[i];
    }
    if (value > best + 1e-12 * std::abs(best)) {
      best = value;
      best_level = level;
    }
  }
  return best_level;
}

TEST(AssignLevels, PrefixSumScanEqualsTheDirectScanOnLargeContexts) {
  // Hundreds to thousands of chunks with floors (beyond brute force): the same levels, chunk by chunk.
  std::mt19937 rng(11);
  std::lognormal_distribution<double> dens(0.0, 1.0);
  std::uniform_int_distribution<int> fl(0, 2);
  for (std::size_t n : {1u, 2u, 50u, 333u, 2048u}) {
    for (double g : {0.25, 0.4, 0.5, 0.8, 1.0}) {
      std::vector<double> d(n);
      std::vector<int> floor(n);
      for (std::size_t i = 0; i < n; ++i) d[i] = dens(rng), floor[i] = (i % 5 == 0) ? 0 : fl(rng);
      EXPECT_EQ(assign_levels(d, g, floor), reference_levels(d, g, floor)) << n << " " << g;
      const std::vector<int> none(n, 0);
      EXPECT_EQ(assign_levels(d, g, none), reference_levels(d, g, none)) << n << " " << g;
    }
  }
}

TEST(Fits, IoIsExactOnLinearData) {
  // T = 0.1 requests + 0.001 bytes.
  const auto io = fit_io({1, 8, 1, 8}, {1000, 8000, 250, 2000}, {1.1, 8.8, 0.35, 2.8});
  EXPECT_NEAR(io.per_request_s, 0.1, 1e-12);
  EXPECT_NEAR(io.per_byte_s, 0.001, 1e-15);
}

// The recompute profile's prefills stay within the window: 1, 2, 4, 8 chunks where they fit, and
// halves of the smallest until three points are timed (chunk_tokens=4096 used to prefill 32768
// tokens, and on a Jetson Orin NX failed the memory check with a message about --model); then on
// to the window, doubling, and the window itself (the attention over a long resident context).
TEST(Fits, RecomputeProfileStaysWithinTheWindow) {
  using V = std::vector<std::uint64_t>;
  EXPECT_EQ(recompute_profile_tokens(16, 4096), (V{16, 32, 64, 128, 256, 512, 1024, 2048, 4096}));
  EXPECT_EQ(recompute_profile_tokens(16, 4000), (V{16, 32, 64, 128, 256, 512, 1024, 2048, 4000}));
  EXPECT_EQ(recompute_profile_tokens(16, 100), (V{16, 32, 64, 100}));
  EXPECT_EQ(recompute_profile_tokens(3, 0), (V{3, 6, 12, 24}));  // no window
  EXPECT_EQ(recompute_profile_tokens(1024, 4096), (V{1024, 2048, 4096}));
  EXPECT_EQ(recompute_profile_tokens(2048, 4096), (V{1024, 2048, 4096}));
  EXPECT_EQ(recompute_profile_tokens(4096, 4096), (V{1024, 2048, 4096}));
  EXPECT_EQ(recompute_profile_tokens(4096, 2048), (V{512, 1024, 2048}));  // a chunk larger than the window
  EXPECT_EQ(recompute_profile_tokens(2, 2), (V{1, 2}));
  EXPECT_EQ(recompute_profile_tokens(1, 1), (V{1, 2}));  // a line needs two points
  EXPECT_THROW(recompute_profile_tokens(0, 16), std::invalid_argument);
}

}  // namespace
}  // namespace socsim::systems::llms
