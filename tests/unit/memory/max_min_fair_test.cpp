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

TEST(MaxMinFair, SharesAreFairBetweenMastersThenWithinThem) {
  // gpu 40, npu 45 { dma 60, hvx 26 }, cpu 20; root 100; one flow each on gpu, dma, hvx, cpu.
  //   root: masters demand cpu 20, gpu 40, npu min(45, 60 + 26) = 45. Equal share 33.3 > 20:
  //         cpu 20; the other two share 80: 40 each (gpu's demand is exactly 40).
  //   npu:  40 between dma (60) and hvx (26): 20 each. Total 100 = root.
  FairShareTree t{{40 * GB, 45 * GB, 60 * GB, 26 * GB, 20 * GB}, {kRootParent, kRootParent, 1, 1, kRootParent}};
  const std::vector<std::uint32_t> flows{0, 2, 3, 4};
  EXPECT_EQ(max_min_fair(t, 100 * GB, flows), (std::vector<double>{40 * GB, 20 * GB, 20 * GB, 20 * GB}));
}

TEST(MaxMinFair, ByCountGivesPerFlowRatePerNode) {
  // Two flows on gpu (cap 40), one on npu (cap 40), root 60: the masters get 30 each (a port's
  // share does not grow with its number of streams); gpu's two flows split its 30. A node
  // without flows reports 0.
  FairShareTree t{{40 * GB, 40 * GB, 10 * GB}, {kRootParent, kRootParent, kRootParent}};
  const std::vector<std::uint32_t> counts{2, 1, 0};
  EXPECT_EQ(max_min_fair_by_count(t, 60 * GB, counts), (std::vector<double>{15 * GB, 30 * GB, 0.0}));
}

TEST(MaxMinFair, FourStreamsOfOneMasterDoNotCrowdOutAnother) {
  // The HeteroLLM 3.3 case: gpu (cap 42.5) one stream; npu.core (cap 42.5) with four HVX streams
  // (cap 26 each); root 60. gpu 30, npu 30 = 4 x 7.5.
  FairShareTree t{{42.5 * GB, 60 * GB, 42.5 * GB, 26 * GB, 26 * GB, 26 * GB, 26 * GB},
                  {kRootParent, kRootParent, 1, 2, 2, 2, 2}};
  const std::vector<std::uint32_t> counts{1, 0, 0, 1, 1, 1, 1};
  const auto r = max_min_fair_by_count(t, 60 * GB, counts);
  EXPECT_DOUBLE_EQ(r[0], 30 * GB);
  for (int i = 3; i < 7; ++i) EXPECT_DOUBLE_EQ(r[i], 7.5 * GB);
}

TEST(MaxMinFair, NoFlowsNoRates) {
  FairShareTree t{{40 * GB}, {kRootParent}};
  EXPECT_TRUE(max_min_fair(t, 68 * GB, std::vector<std::uint32_t>{}).empty());
}

// The defining properties on random trees: no constraint is exceeded, and at every node each
// claimant (an active child subtree or a flow issued on the node) that gets less than another is
// saturated: it receives all its subtree can absorb (its demand). Flows issued directly on a node
// can absorb anything, so they always get the node's top share. And a node hands out all it was
// given unless every claimant is saturated (checked at the root, whose grant is known).
TEST(MaxMinFair, RandomTreesAreFeasibleAndHierarchicallyFair) {
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

    // Subtree loads and demands, computed independently of the implementation.
    auto parent_of = [&](std::size_t i) { return t.parents[i] == kRootParent ? n : static_cast<std::size_t>(t.parents[i]); };
    std::vector<double> load(n + 1, 0.0);
    std::vector<std::uint32_t> direct(n, 0);
    for (std::size_t k = 0; k < flows.size(); ++k) {
      ASSERT_GT(rate[k], 0.0);
      ++direct[flows[k]];
      for (std::size_t v = flows[k]; v != n; v = parent_of(v)) load[v] += rate[k];
      load[n] += rate[k];
    }
    std::vector<double> demand(n, 0.0), child_sum(n + 1, 0.0);
    std::vector<char> active(n + 1, 0);
    for (std::size_t i = n; i-- > 0;) {
      active[i] = active[i] || direct[i] > 0;
      if (!active[i]) continue;
      demand[i] = direct[i] > 0 ? t.caps[i] : std::min(t.caps[i], child_sum[i]);
      child_sum[parent_of(i)] += demand[i];
      active[parent_of(i)] = 1;
    }
    auto capacity = [&](std::size_t v) { return v == n ? root : t.caps[v]; };
    const double eps = 1e-9 * root;
    for (std::size_t v = 0; v <= n; ++v) ASSERT_LE(load[v], capacity(v) + eps) << "trial " << trial;
    for (std::size_t v = 0; v <= n; ++v) {
      double top = 0.0;
      for (std::size_t c = 0; c < n; ++c) {
        if (active[c] && parent_of(c) == v) top = std::max(top, load[c]);
      }
      for (std::size_t k = 0; k < flows.size(); ++k) {
        if (flows[k] == v) top = std::max(top, rate[k]);
      }
      for (std::size_t c = 0; c < n; ++c) {
        if (active[c] && parent_of(c) == v && load[c] < top - eps) {
          EXPECT_GE(load[c], demand[c] - eps) << "trial " << trial << " node " << c << " is short but not saturated";
        }
      }
      for (std::size_t k = 0; k < flows.size(); ++k) {
        if (flows[k] == v) {
          EXPECT_GE(rate[k], top - eps) << "trial " << trial << " flow " << k;
        }
      }
    }
    bool all_saturated = true;
    for (std::size_t c = 0; c < n; ++c) {
      if (active[c] && parent_of(c) == n) all_saturated = all_saturated && load[c] >= demand[c] - eps;
    }
    EXPECT_TRUE(load[n] >= root - eps || all_saturated) << "trial " << trial;
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
