// HeteroLLM's partition solver: analytic optima on synthetic cost tables, the exhaustive
// search's choice kept when bounds and coarse bounds skip candidates, the fallbacks when a bound
// overshoots, and --explain's single-unit times.
#include <gtest/gtest.h>

#include <map>
#include <random>
#include <string>

#include "sim/systems/heterollm/partition_solver.h"
#include "tests/unit/systems/heterollm_test_util.h"

namespace socsim::systems {
namespace {

using heterollm::CutKind;
using namespace heterollm_test;

TEST(HeteroSolver, RowCutBalancesTheUnits) {
  // m standard; per column the NPU is 3x slower than the GPU here: the GPU takes 3/4 of the columns.
  const auto best = heterollm::solve(256, 4096, 4096, params(), linear(3.0, 1.0));
  EXPECT_EQ(best.kind, CutKind::kRow);
  EXPECT_EQ(best.gpu_cols, 3072u);
  EXPECT_EQ(best.npu_cols, 1024u);
  EXPECT_EQ(best.t_total, 192000u);  // 256 rows x 3/4 on the GPU = 256 rows x 1/4 x 3 on the NPU
}

TEST(HeteroSolver, SequenceCutOfTheHeteroLlmExample) {
  // 300 = 256 (NPU) + 44 (GPU): beats padding to 512 and every hybrid.
  const auto best = heterollm::solve(300, 4096, 4096, params(), linear(1.0, 4.0));
  EXPECT_EQ(best.kind, CutKind::kSequence);
  EXPECT_EQ(best.npu_pieces, (std::vector<std::uint64_t>{256}));
  EXPECT_EQ(best.gpu_row_begin, 256u);
  EXPECT_EQ(best.gpu_rows, 44u);
  EXPECT_EQ(best.t_total, 256000u);
}

TEST(HeteroSolver, MultiSequenceCutWhenTheRemainderWouldBindTheGpu) {
  // 600 = 512 + 32 (NPU, in sequence) + 56 (GPU), the paper's example: the single cut 512 + 88
  // leaves the slow GPU 88 rows (704 > 544).
  const auto best = heterollm::solve(600, 4096, 4096, params(), linear(1.0, 8.0));
  EXPECT_EQ(best.kind, CutKind::kMultiSequence);
  EXPECT_EQ(best.npu_pieces, (std::vector<std::uint64_t>{512, 32}));
  EXPECT_EQ(best.gpu_rows, 56u);
  EXPECT_EQ(best.t_total, 544000u);
}

TEST(HeteroSolver, HybridCutWhenTheMarginIsTiny) {
  // 40 rows: padding to 64 and giving the GPU 2/16 of the columns (max(50, 56)) beats 32 + 8
  // rows on the GPU (80), npu-only (64) and gpu-only (400).
  const auto best = heterollm::solve(40, 4096, 4096, params(), linear(1.0, 10.0));
  EXPECT_EQ(best.kind, CutKind::kHybrid);
  EXPECT_EQ(best.npu_pieces, (std::vector<std::uint64_t>{64}));
  EXPECT_EQ(best.gpu_cols, 512u);
  EXPECT_EQ(best.t_total, 56000u);
}

TEST(HeteroSolver, SyncCostKeepsSmallOpsOnOneUnitAndHomeDecidesWhoPays) {
  SolverParams p = params();
  p.sync = 1'000'000'000;  // far more than any part
  EXPECT_EQ(heterollm::solve(256, 4096, 4096, p, linear(1.0, 1.0)).kind, CutKind::kGpuOnly);
  p.npu_home = true;
  EXPECT_EQ(heterollm::solve(256, 4096, 4096, p, linear(1.0, 1.0)).kind, CutKind::kNpuOnly);
}

// With the NPU home a GPU part cuts the neighbours' graph: the graph after it is one more call,
// issued as soon as the NPU part ends, so it runs while the GPU part finishes (qwen2-0.5b's
// down_proj on the 8 Gen 3: a sequence cut whose GPU part ends last ran 250 us faster than it was
// costed, and a bigger TCM chose a slower cut).
TEST(HeteroSolver, WithTheNpuHomeTheCutsGraphCallOverlapsTheGpuPart) {
  SolverParams p = params();
  p.npu_home = true;
  p.sync = 16, p.copy = 3, p.cut_call = 250;
  Partition split;
  split.kind = CutKind::kSequence;
  split.npu_pieces = {64}, split.npu_rows = 64, split.npu_cols = 896;
  split.gpu_row_begin = 64, split.gpu_rows = 192, split.gpu_cols = 896;
  heterollm::set_times(split, {2447, 1160}, p);  // the GPU part ends last: the call hides
  EXPECT_EQ(split.t_part, 2447u + 16 + 3);
  heterollm::set_times(split, {2160, 2312}, p);  // the NPU part ends last: the call follows it
  EXPECT_EQ(split.t_part, 2312u + 250 + 3);
  Partition gpu;
  gpu.gpu_rows = 1, gpu.gpu_cols = 896;
  heterollm::set_times(gpu, {100, 0}, p);  // the NPU idle: the call runs while the GPU works
  EXPECT_EQ(gpu.t_part, 250u + 3);
  Partition npu;
  npu.kind = CutKind::kNpuOnly;
  npu.npu_pieces = {64}, npu.npu_rows = 64, npu.npu_cols = 896;
  heterollm::set_times(npu, {0, 500}, p);  // joins the graph: no cut
  EXPECT_EQ(npu.t_part, 500u);
  p.npu_home = false;  // the GPU home: the paper's formula, the NPU part pays sync and copy
  heterollm::set_times(split, {2160, 2312}, p);
  EXPECT_EQ(split.t_part, 2312u + 16 + 3);
}

TEST(HeteroSolver, PicksTheMinimumOfRandomCostTables) {
  std::mt19937 gen(7);
  for (int trial = 0; trial < 40; ++trial) {
    std::uniform_int_distribution<std::uint64_t> rows(1, 1500), cols(1, 24);
    const std::uint64_t m = rows(gen), n = 256 * cols(gen);
    std::map<std::string, Tick> table;
    auto cost = [&](const Partition& c) {
      // Any table: a random time per distinct part, remembered.
      auto draw = [&](const std::string& key) {
        auto it = table.find(key);
        if (it == table.end()) it = table.emplace(key, std::uniform_int_distribution<Tick>(1, 1'000'000)(gen)).first;
        return it->second;
      };
      return PartTimes{draw("g" + std::to_string(c.gpu_rows) + "x" + std::to_string(c.gpu_cols)),
                       draw("n" + std::to_string(sum(c.npu_pieces)) + "/" + std::to_string(c.npu_pieces.size()) + "x" +
                            std::to_string(c.npu_cols))};
    };
    SolverParams p = params();
    p.sync = 20'000, p.copy = 5'000;
    p.decode = trial % 5 == 0;
    std::vector<Partition> all;
    const auto best = heterollm::solve(m, 4096, n, p, cost, &all);
    Tick expect = kTickMax;
    for (const auto& c : all) {
      const Tick t = std::max(c.uses_gpu() ? c.t_gpu : 0, c.uses_npu() ? c.t_npu : 0) + (c.uses_npu() ? p.sync + p.copy : 0);
      EXPECT_EQ(c.t_total, t);
      expect = std::min(expect, t);
      // Every candidate covers the op: NPU rows + GPU rows, or all rows on both sides of a row cut.
      if (c.kind == CutKind::kSequence || c.kind == CutKind::kMultiSequence) {
        EXPECT_EQ(c.npu_rows + c.gpu_rows, m);
        EXPECT_EQ(sum(c.npu_pieces), c.npu_rows);
        EXPECT_EQ(c.npu_rows % 32, 0u);
      } else if (c.kind == CutKind::kRow || c.kind == CutKind::kHybrid) {
        EXPECT_EQ(c.npu_cols + c.gpu_cols, n);
        EXPECT_EQ(c.gpu_cols % 256, 0u);
        EXPECT_GE(sum(c.npu_pieces), m);
      }
    }
    EXPECT_EQ(best.t_total, expect);
  }
}

// With lower bounds the solver costs only the candidates that could still win, and chooses what
// the exhaustive search chooses (ties included): random tables whose bounds are each candidate's
// times scaled down by a random factor (or equal, which makes ties with the best likely).
TEST(HeteroSolver, LowerBoundsSkipCandidatesButNotTheChoice) {
  std::mt19937 gen(11);
  std::size_t costed = 0, total = 0;
  for (int trial = 0; trial < 60; ++trial) {
    const auto t = random_bound_trial(gen, trial);
    const double slack = trial % 3 == 0 ? 1.0 : std::uniform_real_distribution<double>(0.5, 1.0)(gen);
    const heterollm::CostFn bound = scaled(t.cost, slack);
    std::size_t calls = 0;
    const heterollm::CostFn counted = [&](const Partition& c) {
      ++calls;
      return t.cost(c);
    };
    std::vector<Partition> all, bounded;
    const auto want = heterollm::solve(t.m, 4096, t.n, t.p, t.cost, &all);
    const auto got = heterollm::solve(t.m, 4096, t.n, t.p, counted, &bounded, &bound);
    EXPECT_EQ(got.describe(), want.describe()) << t.m << "x" << t.n;
    EXPECT_EQ(got.t_total, want.t_total);
    ASSERT_EQ(bounded.size(), all.size());
    std::size_t not_bounded = 0;
    for (std::size_t i = 0; i < all.size(); ++i) {
      if (bounded[i].bounded_only) {
        EXPECT_LE(bounded[i].t_total, all[i].t_total);  // a bound, never more than the time
      } else {
        ++not_bounded;
        EXPECT_EQ(bounded[i].t_total, all[i].t_total);
      }
    }
    EXPECT_EQ(not_bounded, calls);
    costed += calls, total += all.size();
  }
  // With these tables the bounds prune most of the work (they are tight for a third of the trials).
  EXPECT_LT(costed * 3, total);
}

// A coarse bound below the bound (each candidate's times scaled down twice) lets the solver skip
// most bounds as well as most costs, and the choice is still the exhaustive search's.
TEST(HeteroSolver, CoarseBoundsSkipBoundsButNotTheChoice) {
  std::mt19937 gen(23);
  std::size_t bounds = 0, total = 0;
  for (int trial = 0; trial < 60; ++trial) {
    const auto t = random_bound_trial(gen, trial);
    const double slack = trial % 3 == 0 ? 1.0 : std::uniform_real_distribution<double>(0.7, 1.0)(gen);
    const double coarser = trial % 4 == 0 ? 1.0 : std::uniform_real_distribution<double>(0.7, 1.0)(gen);
    std::size_t bound_calls = 0;
    const heterollm::CostFn tight = scaled(t.cost, slack);
    const heterollm::CostFn bound = [&](const Partition& c) {
      ++bound_calls;
      return tight(c);
    };
    const heterollm::CostFn coarse = scaled(t.cost, slack * coarser);
    std::vector<Partition> all, bounded;
    const auto want = heterollm::solve(t.m, 4096, t.n, t.p, t.cost, &all);
    const auto got = heterollm::solve(t.m, 4096, t.n, t.p, t.cost, &bounded, &bound, &coarse);
    EXPECT_EQ(got.describe(), want.describe()) << t.m << "x" << t.n;
    EXPECT_EQ(got.t_total, want.t_total);
    ASSERT_EQ(bounded.size(), all.size());
    for (std::size_t i = 0; i < all.size(); ++i) {
      if (bounded[i].bounded_only) {
        EXPECT_LE(bounded[i].t_total, all[i].t_total);
      } else {
        EXPECT_EQ(bounded[i].t_total, all[i].t_total);
      }
    }
    bounds += bound_calls, total += all.size();
  }
  EXPECT_LT(bounds * 2, total);
}

// A coarse bound above the bound (twice the time here) is none: the search starts again from the
// bounds alone, so no candidate is left holding the coarse figure, and the choice is unchanged.
TEST(HeteroSolver, OvershootingCoarseBoundsRestartFromTheBounds) {
  const heterollm::CostFn cost = linear(1.0, 3.0);
  std::size_t coarse_calls = 0;
  const heterollm::CostFn over = [&](const Partition& c) {
    ++coarse_calls;
    return scaled(cost, 2.0)(c);
  };
  const heterollm::CostFn bound = scaled(cost, 0.9);
  std::vector<Partition> all, got_all;
  const auto want = heterollm::solve(600, 4096, 4096, params(), cost, &all);
  const auto got = heterollm::solve(600, 4096, 4096, params(), cost, &got_all, &bound, &over);
  EXPECT_EQ(got.describe(), want.describe());
  EXPECT_EQ(got.t_total, want.t_total);
  EXPECT_EQ(coarse_calls, all.size());  // every candidate ordered by it once, before the restart
  ASSERT_EQ(got_all.size(), all.size());
  std::size_t bounded_only = 0;
  for (std::size_t i = 0; i < all.size(); ++i) {
    // Without the restart the skipped candidates would keep twice their time.
    EXPECT_LE(got_all[i].t_total, all[i].t_total) << got_all[i].describe();
    bounded_only += got_all[i].bounded_only ? 1 : 0;
  }
  EXPECT_GT(bounded_only, 0u);  // the restarted search still skips with the (valid) bounds
}

// Bounds that overshoot (a what-if where sharing speeds a part up) must not change the choice:
// the first costed candidate faster than its bound turns the search exhaustive.
TEST(HeteroSolver, OvershootingBoundsFallBackToTheExhaustiveSearch) {
  const heterollm::CostFn cost = linear(1.0, 3.0);
  const heterollm::CostFn bound = scaled(cost, 2.0);
  SolverParams p = params();
  std::vector<Partition> all;
  const auto want = heterollm::solve(600, 4096, 4096, p, cost);
  const auto got = heterollm::solve(600, 4096, 4096, p, cost, &all, &bound);
  EXPECT_EQ(got.describe(), want.describe());
  EXPECT_EQ(got.t_total, want.t_total);
  for (const auto& c : all) EXPECT_FALSE(c.bounded_only) << c.describe();
}

// --explain's gpu-only and npu-only figures are times, never the bound a skipped single-unit
// candidate holds: with bounds at half the time (and coarse ones at a quarter) most candidates
// are skipped, and the figures still equal the exhaustive search's.
TEST(HeteroSolver, SingleUnitTimesAreCostedNotBounds) {
  for (const bool npu_home : {false, true}) {
    const heterollm::CostFn cost = linear(1.0, 3.0);
    const heterollm::CostFn bound = scaled(cost, 0.5), coarse = scaled(cost, 0.25);
    SolverParams p = params();
    p.sync = 20'000;
    p.npu_home = npu_home;
    std::vector<Partition> all, skipped;
    heterollm::solve(600, 4096, 4096, p, cost, &all);
    heterollm::solve(600, 4096, 4096, p, cost, &skipped, &bound, &coarse);
    bool any_single_skipped = false;
    for (const auto& c : skipped) {
      any_single_skipped |= c.bounded_only && (c.kind == CutKind::kGpuOnly || c.kind == CutKind::kNpuOnly);
    }
    EXPECT_TRUE(any_single_skipped);  // else the test would not test
    const auto want = heterollm::single_unit_times(all, p, cost);
    const auto got = heterollm::single_unit_times(skipped, p, cost);
    EXPECT_GT(want.gpu_only, 0u);
    EXPECT_GT(want.npu_only, 0u);
    EXPECT_EQ(got.gpu_only, want.gpu_only);
    EXPECT_EQ(got.npu_only, want.npu_only);
    // 600 rows x 3 on the GPU alone; the NPU alone pays its padded cover.
    EXPECT_EQ(want.gpu_only, 1'800'000u + (npu_home ? 20'000u : 0u));
  }
}

}  // namespace
}  // namespace socsim::systems
