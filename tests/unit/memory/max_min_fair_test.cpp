#include "sim/hw/memory/max_min_fair.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <stdexcept>
#include <vector>

namespace socsim::hw {
namespace {

constexpr double GB = 1e9;

TEST(MaxMinFair, SingleFlowLimitedByItsNode) {
  // One flow, node cap 40 under root 68: the node binds.
  FairShareTree t{{40 * GB}, {kRootParent}};
  const std::vector<std::uint32_t> flows{0};
  EXPECT_EQ(max_min_fair(t, 68 * GB, flows), (std::vector<double>{40 * GB}));
}

TEST(MaxMinFair, SingleFlowLimitedByRoot) {
  // Node cap 100 above root 68: the root binds.
  FairShareTree t{{100 * GB}, {kRootParent}};
  const std::vector<std::uint32_t> flows{0};
  EXPECT_EQ(max_min_fair(t, 68 * GB, flows), (std::vector<double>{68 * GB}));
}

TEST(MaxMinFair, TwoNodesSplitTheRootEqually) {
  // Caps 40 + 40 > root 60: both rise to 60 / 2 = 30, where the root is full.
  FairShareTree t{{40 * GB, 40 * GB}, {kRootParent, kRootParent}};
  const std::vector<std::uint32_t> flows{0, 1};
  EXPECT_EQ(max_min_fair(t, 60 * GB, flows), (std::vector<double>{30 * GB, 30 * GB}));
}

TEST(MaxMinFair, UnequalCapsGiveTheRestToTheWiderNode) {
  // Level rises to 20 (gpu full), then npu alone takes root 68 - 20 = 48 (< its cap 60).
  FairShareTree t{{20 * GB, 60 * GB}, {kRootParent, kRootParent}};
  const std::vector<std::uint32_t> flows{0, 1};
  EXPECT_EQ(max_min_fair(t, 68 * GB, flows), (std::vector<double>{20 * GB, 48 * GB}));
}

TEST(MaxMinFair, ChildrenShareTheirParentsCap) {
  // npu 45 { dma 60, hvx 26 }: fair share of 45 is 22.5 each; neither child cap binds.
  FairShareTree t{{45 * GB, 60 * GB, 26 * GB}, {kRootParent, 0, 0}};
  const std::vector<std::uint32_t> flows{1, 2};
  EXPECT_EQ(max_min_fair(t, 68 * GB, flows), (std::vector<double>{22.5 * GB, 22.5 * GB}));
}

TEST(MaxMinFair, TightChildCapLeavesTheRestToItsSibling) {
  // hvx cap 10 binds at level 10; dma then takes npu's 45 - 10 = 35.
  FairShareTree t{{45 * GB, 60 * GB, 10 * GB}, {kRootParent, 0, 0}};
  const std::vector<std::uint32_t> flows{1, 2};
  EXPECT_EQ(max_min_fair(t, 68 * GB, flows), (std::vector<double>{35 * GB, 10 * GB}));
}

TEST(MaxMinFair, FlowsOnOneNodeShareItEqually) {
  // Three flows on cap 30: 10 each.
  FairShareTree t{{30 * GB}, {kRootParent}};
  const std::vector<std::uint32_t> flows{0, 0, 0};
  EXPECT_EQ(max_min_fair(t, 68 * GB, flows), (std::vector<double>{10 * GB, 10 * GB, 10 * GB}));
}

TEST(MaxMinFair, FlowOnAParentCompetesWithItsChildren) {
  // npu 45 with a flow on npu itself and one on npu.dma (cap 10): dma 10, npu's own flow 35.
  FairShareTree t{{45 * GB, 10 * GB}, {kRootParent, 0}};
  const std::vector<std::uint32_t> flows{0, 1};
  EXPECT_EQ(max_min_fair(t, 68 * GB, flows), (std::vector<double>{35 * GB, 10 * GB}));
}

TEST(MaxMinFair, SeveralRoundsAcrossLevels) {
  // gpu 40, npu 45 { dma 60, hvx 26 }, cpu 20; root 100; one flow each on gpu, dma, hvx, cpu.
  //   round 1: fair levels root 100/4 = 25, npu 45/2 = 22.5, cpu 20 -> level 20, cpu frozen.
  //   round 2: root (100-20)/3 = 26.7, npu 22.5 -> level 22.5, dma and hvx frozen.
  //   round 3: root 100 - 20 - 45 = 35 < gpu 40 -> gpu 35. Total 100 = root.
  FairShareTree t{{40 * GB, 45 * GB, 60 * GB, 26 * GB, 20 * GB}, {kRootParent, kRootParent, 1, 1, kRootParent}};
  const std::vector<std::uint32_t> flows{0, 2, 3, 4};
  EXPECT_EQ(max_min_fair(t, 100 * GB, flows), (std::vector<double>{35 * GB, 22.5 * GB, 22.5 * GB, 20 * GB}));
}

TEST(MaxMinFair, ByCountGivesPerFlowRatePerNode) {
  // Two flows on gpu (cap 40), one on npu (cap 40), root 60: level 20 fills the root
  // (3 x 20 = 60) before any cap; a node without flows reports 0.
  FairShareTree t{{40 * GB, 40 * GB, 10 * GB}, {kRootParent, kRootParent, kRootParent}};
  const std::vector<std::uint32_t> counts{2, 1, 0};
  EXPECT_EQ(max_min_fair_by_count(t, 60 * GB, counts), (std::vector<double>{20 * GB, 20 * GB, 0.0}));
}

TEST(MaxMinFair, NoFlowsNoRates) {
  FairShareTree t{{40 * GB}, {kRootParent}};
  EXPECT_TRUE(max_min_fair(t, 68 * GB, std::vector<std::uint32_t>{}).empty());
}

// The defining property on random trees: no constraint is exceeded, and every flow has a
// bottleneck, a full constraint on its path where no other flow gets more than it does.
TEST(MaxMinFair, RandomTreesAreFeasibleAndMaxMinFair) {
  std::mt19937 rng(12345);
  std::uniform_real_distribution<double> cap(1.0, 100.0);
  for (int trial = 0; trial < 200; ++trial) {
    const std::size_t n = 1 + rng() % 8;
    FairShareTree t;
    for (std::size_t i = 0; i < n; ++i) {
      t.caps.push_back(cap(rng) * GB);
      t.parents.push_back(i == 0 || rng() % 2 ? kRootParent : static_cast<std::int32_t>(rng() % i));
    }
    std::vector<std::uint32_t> flows;
    for (std::size_t k = 0, m = 1 + rng() % 10; k < m; ++k) flows.push_back(static_cast<std::uint32_t>(rng() % n));
    const double root = cap(rng) * 2 * GB;
    const std::vector<double> rate = max_min_fair(t, root, flows);

    // Path of node i to the root, as constraint ids (n = root).
    auto path = [&](std::uint32_t i) {
      std::vector<std::size_t> p;
      for (std::int32_t v = static_cast<std::int32_t>(i); v != kRootParent; v = t.parents[v]) p.push_back(v);
      p.push_back(n);
      return p;
    };
    std::vector<double> load(n + 1, 0.0), top(n + 1, 0.0);
    for (std::size_t k = 0; k < flows.size(); ++k) {
      ASSERT_GT(rate[k], 0.0);
      for (std::size_t v : path(flows[k])) {
        load[v] += rate[k];
        top[v] = std::max(top[v], rate[k]);
      }
    }
    auto capacity = [&](std::size_t v) { return v == n ? root : t.caps[v]; };
    const double eps = 1e-9 * root;
    for (std::size_t v = 0; v <= n; ++v) ASSERT_LE(load[v], capacity(v) + eps) << "trial " << trial;
    for (std::size_t k = 0; k < flows.size(); ++k) {
      bool bottleneck = false;
      for (std::size_t v : path(flows[k])) {
        bottleneck |= load[v] >= capacity(v) - eps && rate[k] >= top[v] - eps;
      }
      EXPECT_TRUE(bottleneck) << "trial " << trial << " flow " << k;
    }
  }
}

TEST(MaxMinFair, RejectsBadInput) {
  const std::vector<std::uint32_t> one{0};
  EXPECT_THROW(max_min_fair(FairShareTree{{0.0}, {kRootParent}}, 1.0, one), std::invalid_argument);
  EXPECT_THROW(max_min_fair(FairShareTree{{NAN}, {kRootParent}}, 1.0, one), std::invalid_argument);
  EXPECT_THROW(max_min_fair(FairShareTree{{1.0}, {0}}, 1.0, one), std::invalid_argument);  // own parent
  EXPECT_THROW(max_min_fair(FairShareTree{{1.0}, {}}, 1.0, one), std::invalid_argument);
  EXPECT_THROW(max_min_fair(FairShareTree{{1.0}, {kRootParent}}, 0.0, one), std::invalid_argument);
  EXPECT_THROW(max_min_fair(FairShareTree{{1.0}, {kRootParent}}, 1.0, std::vector<std::uint32_t>{1}),
               std::invalid_argument);
}

}  // namespace
}  // namespace socsim::hw
