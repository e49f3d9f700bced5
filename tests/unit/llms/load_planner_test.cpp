// The swap/recompute planner against hand cases and against brute force over every split.
#include "sim/systems/llms/load_planner.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <limits>

namespace socsim::systems::llms {
namespace {

constexpr std::uint64_t kChunk = 1000;  // bytes of a chunk at 8/8

ServiceCosts costs(double re_fixed, double re_per_chunk, double io_per_request, double io_per_byte) {
  ServiceCosts c;
  c.recompute_s = {re_fixed, re_per_chunk};
  c.read = {io_per_request, io_per_byte};
  return c;
}

TEST(LoadPlanner, HandCaseRecomputesTheHeaviestChunks) {
  // Reads: 8/8 chunk 1 + 1000 x 0.01 = 11 s, 4/8 6 s, 2/8 3.5 s (per request 1 s). Recompute: 5 s
  // per chunk, no fixed cost. Missing: 2 heavy, 2 light. Read all: 2x11 + 2x3.5 = 29 s.
  // Recompute R heaviest: R=1: re 5, io 18 -> 18 + 5/L; R=2: re 10, io 7 -> 10 + 7/L; R=3: re 15, io 3.5
  // -> 15 + 3.5/L. With L = 1000 layers the best is R = 2 (both 8/8 chunks): 10.007.
  const auto c = costs(0, 5, 1, 0.01);
  const auto p = plan_load({2, 0, 2}, c, kChunk, 1000, true);
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
  const auto p = plan_load({10, 10, 10}, c, 4 << 20, 32, true);
  EXPECT_EQ(p.recompute[0] + p.recompute[1] + p.recompute[2], 0u);
  EXPECT_DOUBLE_EQ(p.pipelined_s, p.io_s);
}

TEST(LoadPlanner, PipelineOffNeverRecomputes) {
  const auto c = costs(0, 0.001, 1, 0.01);  // recompute nearly free
  const auto p = plan_load({3, 3, 3}, c, kChunk, 8, false);
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
        const auto plan = plan_load(m, c, kChunk, layers, true);
        double best = std::numeric_limits<double>::infinity();
        for (std::uint64_t a = 0; a <= m[0]; ++a) {
          for (std::uint64_t b = 0; b <= m[1]; ++b) {
            for (std::uint64_t d = 0; d <= m[2]; ++d) {
              const LevelCounts read{m[0] - a, m[1] - b, m[2] - d};
              const double re = c.recompute_s.at(static_cast<double>(a + b + d));
              best = std::min(best, pipelined_seconds(re, read_seconds(read, c.read, kChunk), layers));
            }
          }
        }
        EXPECT_NEAR(plan.pipelined_s, best, 1e-12) << "layers " << layers;
      }
    }
  }
}

}  // namespace
}  // namespace socsim::systems::llms
