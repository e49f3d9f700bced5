// The swap/recompute planner against hand cases and against brute force over every split.
#include "sim/systems/llms/load_planner.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <random>
#include <vector>

namespace socsim::systems::llms {
namespace {

constexpr std::uint64_t kChunk = 1000;  // bytes of a chunk at 8/8

// Hand cases count chunks: each missing chunk is one token at the context's start, so recompute
// costs re_fixed + re_per_chunk per chunk and no attention beyond a cold prefill's.
ServiceCosts costs(double re_fixed, double re_per_chunk, double io_per_request, double io_per_byte) {
  ServiceCosts c;
  c.recompute_s = RecomputeCost::linear(re_fixed, re_per_chunk);
  c.read = {io_per_request, io_per_byte};
  return c;
}

std::vector<MissingChunk> chunks(const LevelCounts& m) {
  std::vector<MissingChunk> v;
  for (int w = 0; w < kLevels; ++w) {
    for (std::uint64_t i = 0; i < m[w]; ++i) v.push_back({w, 1, 0});
  }
  return v;
}

TEST(LoadPlanner, HandCaseRecomputesTheHeaviestChunks) {
  // Reads: 8/8 chunk 1 + 1000 x 0.01 = 11 s, 4/8 6 s, 2/8 3.5 s (per request 1 s). Recompute: 5 s
  // per chunk, no fixed cost. Missing: 2 heavy, 2 light. Read all: 2x11 + 2x3.5 = 29 s.
  // Recompute R heaviest: R=1: re 5, io 18 -> 18 + 5/L; R=2: re 10, io 7 -> 10 + 7/L; R=3: re 15, io 3.5
  // -> 15 + 3.5/L. With L = 1000 layers the best is R = 2 (both 8/8 chunks): 10.007.
  const auto c = costs(0, 5, 1, 0.01);
  const auto p = plan_load(chunks({2, 0, 2}), c, kChunk, 1000, true);
  EXPECT_EQ(p.recompute[0], 2u);
  EXPECT_EQ(p.recompute[1], 0u);
  EXPECT_EQ(p.recompute[2], 0u);
  EXPECT_DOUBLE_EQ(p.recompute_s, 10.0);
  EXPECT_DOUBLE_EQ(p.io_s, 7.0);
  EXPECT_NEAR(p.pipelined_s, 10.0 + 7.0 / 1000, 1e-12);
  EXPECT_EQ(p.read_bytes, 2u * 250u);
  EXPECT_EQ(p.read_requests, 2u);
}

TEST(LoadPlanner, ExpensiveRecomputeReadsEverything) {
  const auto c = costs(1.0, 0.2, 1e-4, 1e-9);  // a fast disk, a 1 s recompute fixed cost
  const auto p = plan_load(chunks({10, 10, 10}), c, 4 << 20, 32, true);
  EXPECT_EQ(p.recompute[0] + p.recompute[1] + p.recompute[2], 0u);
  EXPECT_DOUBLE_EQ(p.pipelined_s, p.io_s);
}

TEST(LoadPlanner, PipelineOffNeverRecomputes) {
  const auto c = costs(0, 0.001, 1, 0.01);  // recompute nearly free
  const auto p = plan_load(chunks({3, 3, 3}), c, kChunk, 8, false);
  EXPECT_EQ(p.recompute[0] + p.recompute[1] + p.recompute[2], 0u);
  EXPECT_DOUBLE_EQ(p.io_s, 3 * 11.0 + 3 * 6.0 + 3 * 3.5);
}

TEST(LoadPlanner, PipelinedTimeHandCase) {
  // io 8, re 4, L 4: io/L + (L-1) max/L + re/L = 2 + 6 + 1 = 9 = max + min/L.
  EXPECT_DOUBLE_EQ(pipelined_seconds(4, 8, 4), 9.0);
  EXPECT_DOUBLE_EQ(pipelined_seconds(0, 8, 4), 8.0);
  EXPECT_DOUBLE_EQ(pipelined_seconds(4, 0, 4), 4.0);
}

TEST(LoadPlanner, MatchesBruteForceOverEverySplit) {
  const ServiceCosts cases[] = {costs(0.3, 0.5, 0.2, 0.002), costs(0, 2, 1, 0.01), costs(5, 0.1, 0.5, 0.004),
                                costs(0.05, 1.5, 0.015, 0.03)};
  const LevelCounts missing[] = {{3, 2, 4}, {0, 5, 1}, {6, 0, 0}, {2, 3, 7}, {1, 1, 1}};
  for (const auto& c : cases) {
    for (const auto& m : missing) {
      for (std::uint32_t layers : {1u, 4u, 32u}) {
        const auto plan = plan_load(chunks(m), c, kChunk, layers, true);
        double best = std::numeric_limits<double>::infinity();
        for (std::uint64_t a = 0; a <= m[0]; ++a) {
          for (std::uint64_t b = 0; b <= m[1]; ++b) {
            for (std::uint64_t d = 0; d <= m[2]; ++d) {
              const LevelCounts read{m[0] - a, m[1] - b, m[2] - d};
              const double re = c.recompute_s.cold(static_cast<double>(a + b + d));
              best = std::min(best, pipelined_seconds(re, read_seconds(read, c.read, kChunk), layers));
            }
          }
        }
        EXPECT_NEAR(plan.pipelined_s, best, 1e-12) << "layers " << layers;
      }
    }
  }
}

// Where a chunk sits matters: with attention over the resident context a chunk late in a long
// context costs more to recompute. Two 8/8 chunks of 16 tokens missing, one at the start and one
// after 4000 tokens; reading either costs 0.3 s, recomputing one costs 0.2 s cold plus 1e-5 s per
// pair beyond a cold prefill's (the late one: 16 x 4000 pairs more, 0.64 s). With one layer the
// load is re + io, so the best plan recomputes the early chunk and reads the late one: 0.5 s.
TEST(LoadPlanner, RecomputesTheChunksNearTheStartOfALongContext) {
  ServiceCosts c;
  c.recompute_s = RecomputeCost::linear(0.04, 0.01, 1e-5);
  c.read = {0.3, 0};
  const std::vector<MissingChunk> missing{{0, 16, 4000}, {0, 16, 0}};
  const auto p = plan_load(missing, c, kChunk, 1, true);
  EXPECT_EQ(p.recompute[0], 1u);
  EXPECT_EQ(p.recompute_tokens, 16.0);
  EXPECT_EQ(p.recompute_pairs, RecomputeCost::pairs_of(0, 16));  // the early one
  EXPECT_NEAR(p.pipelined_s, 0.2 + 0.3, 1e-12);
  // Without the attention term the two cost the same: recomputing both (0.36 s) beats any read.
  c.recompute_s = RecomputeCost::linear(0.04, 0.01);
  EXPECT_EQ(plan_load(missing, c, kChunk, 1, true).recompute[0], 2u);
}

TEST(LoadPlanner, RejectsALevelOutOfRange) {
  const auto c = costs(0, 1, 1, 0);
  EXPECT_THROW(plan_load({{kLevels, 16, 0}}, c, kChunk, 1, true), std::invalid_argument);
  EXPECT_THROW(plan_load({{-1, 16, 0}}, c, kChunk, 1, true), std::invalid_argument);
}

// With the attention term the ranking is a knapsack's greedy: against every subset of up to 10
// chunks of random levels, sizes and positions, its plan is never more than one chunk's cost (its
// read or its recompute alone, whichever is dearer) from the best, and never worse than reading
// everything.
TEST(LoadPlanner, PositionedChunksStayWithinAChunkOfEverySubset) {
  std::mt19937_64 rng(7);
  std::uniform_int_distribution<int> level(0, kLevels - 1), count(1, 10), tokens(1, 16);
  std::uniform_real_distribution<double> u(0, 1);
  int exact = 0, cases = 0;
  for (int trial = 0; trial < 200; ++trial) {
    ServiceCosts c;
    c.recompute_s = RecomputeCost::linear(0.05 * u(rng), 0.002 + 0.01 * u(rng), 1e-6 * u(rng));
    c.read = {0.05 + 0.2 * u(rng), 1e-5 * u(rng)};
    std::vector<MissingChunk> m;
    std::uint64_t position = 0;
    const int n = count(rng);
    for (int i = 0; i < n; ++i) {
      position += static_cast<std::uint64_t>(2000 * u(rng));
      const auto t = static_cast<std::uint32_t>(tokens(rng));
      m.push_back({level(rng), t, position});
      position += t;
    }
    const std::uint32_t layers = trial % 2 ? 32 : 1;
    const auto plan = plan_load(m, c, kChunk, layers, true);
    double best = std::numeric_limits<double>::infinity(), slack = 0;
    for (std::uint32_t mask = 0; mask < (1u << n); ++mask) {
      LevelCounts read{};
      double t = 0, pairs = 0;
      for (int i = 0; i < n; ++i) {
        if (mask >> i & 1) {
          t += m[i].tokens;
          pairs += RecomputeCost::pairs_of(static_cast<double>(m[i].start), m[i].tokens);
        } else {
          ++read[m[i].level];
        }
      }
      best = std::min(best, pipelined_seconds(c.recompute_s.at(t, pairs), read_seconds(read, c.read, kChunk), layers));
    }
    for (const auto& ch : m) {
      LevelCounts one{};
      one[ch.level] = 1;
      slack = std::max({slack, read_seconds(one, c.read, kChunk),
                        c.recompute_s.at(ch.tokens, RecomputeCost::pairs_of(static_cast<double>(ch.start), ch.tokens))});
    }
    EXPECT_GE(plan.pipelined_s, best - 1e-12);
    EXPECT_LE(plan.pipelined_s, best + slack) << "trial " << trial;
    EXPECT_LE(plan.pipelined_s, plan_load(m, c, kChunk, layers, false).pipelined_s + 1e-12);
    // Never worse than a planner blind to positions: chunks by read time, heavier levels first.
    std::vector<std::size_t> order(m.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
      LevelCounts la{}, lb{};
      la[m[a].level] = lb[m[b].level] = 1;
      return read_seconds(la, c.read, kChunk) > read_seconds(lb, c.read, kChunk);
    });
    LevelCounts read{};
    for (const auto& ch : m) ++read[ch.level];
    double t = 0, pairs = 0;
    for (std::size_t i : order) {
      --read[m[i].level];
      t += m[i].tokens;
      pairs += RecomputeCost::pairs_of(static_cast<double>(m[i].start), m[i].tokens);
      EXPECT_LE(plan.pipelined_s, pipelined_seconds(c.recompute_s.at(t, pairs), read_seconds(read, c.read, kChunk), layers) + 1e-12);
    }
    exact += plan.pipelined_s <= best + 1e-12;
    ++cases;
  }
  EXPECT_GT(exact, cases * 3 / 4);  // mostly exact: the greedy misses near the balance point only
}

}  // namespace
}  // namespace socsim::systems::llms
