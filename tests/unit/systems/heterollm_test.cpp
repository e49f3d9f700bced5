// HeteroLLM (hetero-layer, hetero-tensor): the partition solver against analytic optima on
// synthetic cost tables, splits that cover a matmul exactly (bit-identical to the unsplit W4A16
// GEMM), fast synchronization that never reorders a dependency and costs less than the standard
// path, and the system-level claims (prefill, misaligned prompts, decode bandwidth).
#include <gtest/gtest.h>

#include <cstring>
#include <random>

#include "kernels/gemm/gemm_w4a16.h"
#include "sim/functional/functional_run.h"
#include "sim/hw/soc_spec.h"
#include "sim/runtime/simulate_run.h"
#include "sim/systems/heterollm/heterollm_system.h"
#include "sim/systems/heterollm/partition_jobs.h"
#include "sim/systems/heterollm/partition_solver.h"
#include "sim/systems/heterollm/prediction_profiler.h"
#include "tests/unit/functional/functional_test_helpers.h"
#include "tests/unit/kernels/gemm/kernel_test_util.h"

namespace socsim::systems {
namespace {

using heterollm::CutKind;
using heterollm::Partition;
using heterollm::PartTimes;
using heterollm::SolverParams;

const std::string kRoot = SOCSIM_SOURCE_DIR;

SolverParams params(std::uint64_t row_align = 256) {
  SolverParams p;
  p.standard = {32, 64, 128, 256, 512, 1024};
  p.row_align = row_align;
  return p;
}

std::uint64_t sum(const std::vector<std::uint64_t>& v) {
  std::uint64_t s = 0;
  for (auto x : v) s += x;
  return s;
}

// Synthetic tables in abstract ticks: the NPU pays per padded row (stage performance), the GPU per
// real row, both per column share.
heterollm::CostFn linear(double npu_per_row, double gpu_per_row) {
  return [=](const Partition& c) {
    PartTimes t;
    const double ncols = static_cast<double>(c.npu_cols) / static_cast<double>(c.n);
    const double gcols = static_cast<double>(c.gpu_cols) / static_cast<double>(c.n);
    t.npu = static_cast<Tick>(npu_per_row * static_cast<double>(sum(c.npu_pieces)) * ncols * 1000);
    t.gpu = static_cast<Tick>(gpu_per_row * static_cast<double>(c.gpu_rows) * gcols * 1000);
    return t;
  };
}

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
    std::uniform_int_distribution<std::uint64_t> rows(1, 3000), cols(1, 24);
    const std::uint64_t m = rows(gen), n = 256 * cols(gen);
    const double npu = std::uniform_real_distribution<double>(0.5, 4)(gen), gpu = std::uniform_real_distribution<double>(0.5, 4)(gen);
    const heterollm::CostFn cost = linear(npu, gpu);
    const double slack = trial % 3 == 0 ? 1.0 : std::uniform_real_distribution<double>(0.5, 1.0)(gen);
    const heterollm::CostFn bound = [&](const Partition& c) {
      const PartTimes t = cost(c);
      return PartTimes{static_cast<Tick>(static_cast<double>(t.gpu) * slack), static_cast<Tick>(static_cast<double>(t.npu) * slack)};
    };
    SolverParams p = params();
    p.sync = 20'000, p.copy = 5'000;
    p.decode = trial % 5 == 0;
    p.npu_home = trial % 2 == 0;
    p.force_split = trial % 7 == 0;
    std::size_t calls = 0;
    const heterollm::CostFn counted = [&](const Partition& c) {
      ++calls;
      return cost(c);
    };
    std::vector<Partition> all, bounded;
    const auto want = heterollm::solve(m, 4096, n, p, cost, &all);
    const auto got = heterollm::solve(m, 4096, n, p, counted, &bounded, &bound);
    EXPECT_EQ(got.describe(), want.describe()) << m << "x" << n;
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
// most bounds as well as most costs, and the choice is still the exhaustive search's. A coarse
// bound above the bound makes it start again from the bounds alone.
TEST(HeteroSolver, CoarseBoundsSkipBoundsButNotTheChoice) {
  std::mt19937 gen(23);
  std::size_t bounds = 0, total = 0;
  for (int trial = 0; trial < 60; ++trial) {
    std::uniform_int_distribution<std::uint64_t> rows(1, 3000), cols(1, 24);
    const std::uint64_t m = rows(gen), n = 256 * cols(gen);
    const double npu = std::uniform_real_distribution<double>(0.5, 4)(gen), gpu = std::uniform_real_distribution<double>(0.5, 4)(gen);
    const heterollm::CostFn cost = linear(npu, gpu);
    const double slack = trial % 3 == 0 ? 1.0 : std::uniform_real_distribution<double>(0.7, 1.0)(gen);
    const double coarser = trial % 4 == 0 ? 1.0 : std::uniform_real_distribution<double>(0.7, 1.0)(gen);
    const auto scaled = [&](double f) {
      return [&cost, f](const Partition& c) {
        const PartTimes t = cost(c);
        return PartTimes{static_cast<Tick>(static_cast<double>(t.gpu) * f), static_cast<Tick>(static_cast<double>(t.npu) * f)};
      };
    };
    std::size_t bound_calls = 0;
    const heterollm::CostFn bound = [&](const Partition& c) {
      ++bound_calls;
      return scaled(slack)(c);
    };
    const heterollm::CostFn coarse = scaled(slack * coarser);
    SolverParams p = params();
    p.sync = 20'000, p.copy = 5'000;
    p.decode = trial % 5 == 0;
    p.npu_home = trial % 2 == 0;
    p.force_split = trial % 7 == 0;
    std::vector<Partition> all, bounded;
    const auto want = heterollm::solve(m, 4096, n, p, cost, &all);
    const auto got = heterollm::solve(m, 4096, n, p, cost, &bounded, &bound, &coarse);
    EXPECT_EQ(got.describe(), want.describe()) << m << "x" << n;
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

  const heterollm::CostFn cost = linear(1.0, 3.0);
  const heterollm::CostFn bound = [&](const Partition& c) { return cost(c); };
  const heterollm::CostFn over = [&](const Partition& c) {
    const PartTimes t = cost(c);
    return PartTimes{t.gpu * 2, t.npu * 2};
  };
  const auto want = heterollm::solve(600, 4096, 4096, params(), cost);
  const auto got = heterollm::solve(600, 4096, 4096, params(), cost, nullptr, &bound, &over);
  EXPECT_EQ(got.describe(), want.describe());
  EXPECT_EQ(got.t_total, want.t_total);
}

// Bounds that overshoot (a what-if where sharing speeds a part up) must not change the choice:
// the first costed candidate faster than its bound turns the search exhaustive.
TEST(HeteroSolver, OvershootingBoundsFallBackToTheExhaustiveSearch) {
  const heterollm::CostFn cost = linear(1.0, 3.0);
  const heterollm::CostFn bound = [&](const Partition& c) {
    const PartTimes t = cost(c);
    return PartTimes{t.gpu * 2, t.npu * 2};
  };
  SolverParams p = params();
  std::vector<Partition> all;
  const auto want = heterollm::solve(600, 4096, 4096, p, cost);
  const auto got = heterollm::solve(600, 4096, 4096, p, cost, &all, &bound);
  EXPECT_EQ(got.describe(), want.describe());
  EXPECT_EQ(got.t_total, want.t_total);
  for (const auto& c : all) EXPECT_FALSE(c.bounded_only) << c.describe();
}

// The real-execution profiler's bounds are the parts run alone: never above a candidate's time,
// and equal to it for a single-unit candidate (what it runs is the part alone). Every candidate
// of a prefill, a one-row and a 16-row decode matmul of qwen2-0.5b is checked on the 8 Gen 3 and
// the 8 Gen 2 (another NPU); the solver's choice with the bounds is the exhaustive one.
TEST(HeteroProfiler, PartsAloneBoundTheCandidates) {
  for (const char* soc : {"snapdragon-8gen3", "snapdragon-8gen2"}) {
    const auto spec = hw::load_soc_spec(kRoot + "/soc_configs/" + soc + ".yaml", {});
    const auto model = model::load_model_config(kRoot + "/models/qwen2-0.5b.json");
    heterollm::PartitionProfiler prof(spec, model);
    for (const std::uint64_t m : {300, 1, 16}) {
      SolverParams p = params();
      p.decode = m < 32;
      p.sync = 20'000;
      const std::uint64_t k = 896, n = 4864;
      const heterollm::CostFn cost = [&](const Partition& c) { return prof.time(c); };
      const heterollm::CostFn bound = [&](const Partition& c) { return prof.alone(c); };
      const heterollm::CostFn coarse = [&](const Partition& c) { return prof.coarse(c); };
      std::vector<Partition> all;
      const auto want = heterollm::solve(m, k, n, p, cost, &all);
      const auto got = heterollm::solve(m, k, n, p, cost, nullptr, &bound);
      EXPECT_EQ(got.describe(), want.describe());
      EXPECT_EQ(heterollm::solve(m, k, n, p, cost, nullptr, &bound, &coarse).describe(), want.describe());
      for (const auto& c : all) {
        const PartTimes t = prof.time(c), b = prof.alone(c), q = prof.coarse(c);
        // The coarse bounds, computed from the parts' kernels and steps: at most what the parts take
        // alone, and not far below (the GPU queue runs its kernels back to back; a 16-row decode
        // part of 256 columns, 22.6 us of bound, runs 30-34 us alone, fixed costs the bound leaves
        // out; an NPU piece is bound by one engine, here the DMA's set-up and bytes).
        if (c.uses_gpu()) {
          EXPECT_LE(q.gpu, b.gpu) << c.describe();
          EXPECT_GE(static_cast<double>(q.gpu), 0.6 * static_cast<double>(b.gpu)) << c.describe();
        }
        if (c.uses_npu()) {
          EXPECT_LE(q.npu, b.npu) << c.describe();
          EXPECT_GE(static_cast<double>(q.npu), 0.8 * static_cast<double>(b.npu)) << c.describe();
        }
        if (c.uses_gpu()) { EXPECT_LE(b.gpu, t.gpu) << c.describe(); }
        if (c.uses_npu()) { EXPECT_LE(b.npu, t.npu) << c.describe(); }
        if (!c.uses_npu()) { EXPECT_EQ(b.gpu, t.gpu) << c.describe(); }
        if (!c.uses_gpu()) { EXPECT_EQ(b.npu, t.npu) << c.describe(); }  // pieces back to back add up
      }
    }
  }
}

// The parts of a partition of a sibling group (two matmuls sharing their input), computed with
// the W4A16 kernel on their own rows and columns and assembled, equal the unsplit matmuls bit for
// bit, every output element written exactly once.
TEST(HeteroPartition, SplitsCoverTheMatmulExactly) {
  const std::int64_t m = 100, k = 64;
  const std::vector<std::int64_t> ns = {512, 256};
  const kernels::Tensor a = kernels::test::random_f16(m, k, 5);
  std::vector<kernels::Tensor> wt, full;
  for (std::size_t o = 0; o < ns.size(); ++o) {
    wt.push_back(kernels::test::random_f32(ns[o], k, 10 + static_cast<std::uint32_t>(o)));
    full.push_back(kernels::gemm_w4a16(a, kernels::quantize_blocks(wt[o], kernels::BlockFormat::kQ4_0), 1));
  }
  std::vector<model::GraphOp> group;
  for (std::size_t o = 0; o < ns.size(); ++o) {
    model::OpDesc op{o == 0 ? "gate_proj" : "up_proj", model::OpKind::kMatMul};
    op.m = m, op.k = k, op.n = static_cast<std::uint64_t>(ns[o]), op.weight_params = op.k * op.n;
    group.push_back({op, model::Phase::kPrefill, 0, 0});
  }
  SolverParams p = params();
  p.standard = {32, 64};
  std::size_t checked = 0;
  for (const auto& c : heterollm::candidates(m, k, 768, p)) {
    SCOPED_TRACE(c.describe());
    std::vector<kernels::Tensor> out;
    std::vector<std::vector<int>> written;
    for (std::size_t o = 0; o < ns.size(); ++o) {
      out.push_back(kernels::Tensor::matrix(m, ns[o], kernels::ElemType::kF16));
      written.emplace_back(static_cast<std::size_t>(m * ns[o]), 0);
    }
    // Per op: the NPU's columns are its first ones, the GPU's the rest (row cuts).
    std::map<std::string, std::pair<std::int64_t, std::int64_t>> col_base;
    auto run_part = [&](const model::GraphOp& g, std::int64_t row0, std::int64_t rows, bool gpu) {
      const std::size_t o = g.op.name.rfind("gate_proj", 0) == 0 ? 0 : 1;
      const auto cols = static_cast<std::int64_t>(g.op.n);
      const std::int64_t col0 = gpu ? ns[o] - cols : 0;
      // The part's operands: rows [row0, row0 + rows) of A (fewer if padded past m), the weight
      // rows of its output columns.
      const std::int64_t real = std::min(rows, m - row0);
      kernels::Tensor as = kernels::Tensor::matrix(real, k, kernels::ElemType::kF16);
      std::memcpy(as.raw().data(), a.raw().data() + row0 * k * 2, static_cast<std::size_t>(real * k * 2));
      kernels::Tensor ws = kernels::Tensor::matrix(cols, k, kernels::ElemType::kF32);
      std::memcpy(ws.raw().data(), wt[o].raw().data() + col0 * k * 4, static_cast<std::size_t>(cols * k * 4));
      const kernels::Tensor c = kernels::gemm_w4a16(as, kernels::quantize_blocks(ws, kernels::BlockFormat::kQ4_0), 1);
      for (std::int64_t r = 0; r < real; ++r) {
        std::memcpy(out[o].raw().data() + ((row0 + r) * ns[o] + col0) * 2, c.raw().data() + r * cols * 2,
                    static_cast<std::size_t>(cols * 2));
        for (std::int64_t x = 0; x < cols; ++x) ++written[o][static_cast<std::size_t>((row0 + r) * ns[o] + col0 + x)];
      }
    };
    std::int64_t npu_row = 0;
    for (const auto& job : heterollm::partition_jobs(c, group)) {
      const bool gpu = job.unit == kernels::Unit::kGpu;
      std::int64_t rows = 0;
      for (const auto& g : job.ops) {
        rows = static_cast<std::int64_t>(g.op.m);
        const std::int64_t row0 = gpu ? static_cast<std::int64_t>(c.gpu_row_begin) : npu_row;
        // NPU pieces beyond the op's NPU rows are padding, computed and thrown away.
        const std::int64_t keep = gpu ? rows : std::min<std::int64_t>(rows, static_cast<std::int64_t>(c.npu_rows) - npu_row);
        if (keep > 0) run_part(g, row0, keep, gpu);
      }
      if (!gpu) npu_row += rows;
    }
    for (std::size_t o = 0; o < ns.size(); ++o) {
      for (int w : written[o]) ASSERT_EQ(w, 1);
      ASSERT_EQ(std::memcmp(out[o].raw().data(), full[o].raw().data(), full[o].bytes()), 0);
    }
    ++checked;
  }
  EXPECT_GT(checked, 4u);
}

TEST(HeteroPrediction, RegressionTreeFitsAPiecewiseConstantFunctionExactly) {
  heterollm::RegressionTree tree;
  std::vector<heterollm::RegressionTree::Features> x;
  std::vector<double> y;
  auto f = [](const heterollm::RegressionTree::Features& v) { return v[0] < 2 ? 3.0 : (v[2] < 1 ? 5.0 : 7.0); };
  for (double a = 0; a < 4; a += 0.5) {
    for (double c = -1; c < 3; c += 0.5) x.push_back({a, 1, c}), y.push_back(f(x.back()));
  }
  tree.fit(x, y);
  EXPECT_EQ(tree.leaves(), 3u);
  for (const auto& v : x) EXPECT_DOUBLE_EQ(tree.predict(v), f(v));
  EXPECT_DOUBLE_EQ(tree.predict({10, 0, -5}), 5.0);
}

TEST(HeteroPrediction, NpuTreeTracksTheRealProfiles) {
  const auto spec = hw::load_soc_spec(kRoot + "/soc_configs/snapdragon-8gen3.yaml", {});
  const auto m = model::load_model_config(kRoot + "/models/qwen2-1.5b.json");
  const heterollm::PredictionProfiler pred(spec, m, {1, 32, 64, 128, 256, 512, 1024}, {1536, 8960}, 16384, 1e12);
  EXPECT_GT(pred.training_points(), 50u);
  heterollm::PartitionProfiler real(spec, m);
  for (const auto& [rows, k, cols] : std::vector<std::array<std::uint64_t, 3>>{{256, 1536, 4096}, {256, 1536, 3072}, {1024, 8960, 1536}, {1, 1536, 6144}}) {
    Partition p;
    p.kind = CutKind::kNpuOnly;
    p.m = rows, p.k = k, p.n = cols, p.npu_pieces = {rows}, p.npu_rows = rows, p.npu_cols = cols;
    const double r = static_cast<double>(real.time(p).npu), e = static_cast<double>(pred.npu_piece(rows, k, cols));
    EXPECT_NEAR(e / r, 1.0, 0.25) << rows << "x" << k << "x" << cols;
  }
}

// --- the systems end to end ---

struct HeteroRun {
  config::ConfigTree tree = config::ConfigTree::load_file(kRoot + "/soc_configs/snapdragon-8gen3.yaml");
  runtime::RunRequest req;
  std::unique_ptr<System> system;
  HeteroRun(const std::string& id, const std::string& model, std::uint64_t prompt, std::uint64_t decode,
            std::vector<std::string> sets = {}) {
    for (const auto& s : sets) tree.apply_override(s);
    req.soc_id = "snapdragon-8gen3";
    req.soc = hw::parse_soc_spec(tree);
    req.model = model.empty() ? functional::test::tiny_model() : model::load_model_config(kRoot + "/models/" + model + ".json");
    req.system = id;
    req.prompt_tokens = prompt, req.decode_tokens = decode;
    system = SystemRegistry::builtin().make(id);
    auto root = tree.root();
    system->configure(root, req.soc, req.model);
    tree.check_all_consumed();
  }
  report::RunReport run() {
    report::TraceRecorder trace;
    return runtime::simulate_run(req, *system, trace);
  }
};

TEST(HeteroSystems, TensorLevelPrefillBeatsGpuOnlyAndNpuPaddingAtAMisalignedLength) {
  const double tensor = *HeteroRun("hetero-tensor", "qwen2-0.5b", 300, 0).run().ttft_ms;
  const double layer = *HeteroRun("hetero-layer", "qwen2-0.5b", 300, 0).run().ttft_ms;
  EXPECT_LT(tensor, *HeteroRun("gpu-only", "qwen2-0.5b", 300, 0).run().ttft_ms);
  EXPECT_LT(tensor, *HeteroRun("npu-only", "qwen2-0.5b", 300, 0, {"npu.shape_policy=padding"}).run().ttft_ms);
  EXPECT_LE(tensor, layer);
  // The solver costs an unsplit NPU op as the plan runs it (inside the home graph), so splitting
  // never loses to hetero-layer.
  for (std::uint64_t prompt : {135u, 525u}) {
    EXPECT_LE(*HeteroRun("hetero-tensor", "qwen2-0.5b", prompt, 0).run().ttft_ms,
              *HeteroRun("hetero-layer", "qwen2-0.5b", prompt, 0).run().ttft_ms)
        << prompt;
  }
}

TEST(HeteroSystems, FastSyncBeatsTheStandardPath) {
  // Decode: a qwen2-0.5b prefill of 256 runs on the NPU alone (its head's GEMV too), so only
  // decode hands over between the GPU and NPU.
  for (const char* id : {"hetero-layer", "hetero-tensor"}) {
    const double fast = *HeteroRun(id, "qwen2-0.5b", 256, 4).run().total_ms;
    const double standard = *HeteroRun(id, "qwen2-0.5b", 256, 4, {"heterollm.fast_sync=false"}).run().total_ms;
    EXPECT_LT(fast, standard) << id;
  }
}

// The ablation swaps the synchronization only (HeteroLLM 5.4): the same partitions, and in the
// standard path every GPU kernel waits for a queue flush of at least gpu.sync_fixed.
TEST(HeteroSystems, StandardSyncKeepsThePlanAndFlushesEveryGpuKernel) {
  const auto fast = HeteroRun("hetero-tensor", "qwen2-0.5b", 64, 2).run();
  HeteroRun standard_run("hetero-tensor", "qwen2-0.5b", 64, 2, {"heterollm.fast_sync=false"});
  const auto standard = standard_run.run();
  EXPECT_EQ(fast.extra.at("system_info").at("decisions"), standard.extra.at("system_info").at("decisions"));
  EXPECT_EQ(fast.extra.at("system_info").at("matmul_partitions"), standard.extra.at("system_info").at("matmul_partitions"));
  // Count the GPU ops of one decode step: each op's kernel that runs shorter than sync_fixed (all
  // but a few in a 0.5B model) adds the rest of it as waiting, plus the queue restart.
  std::uint64_t gpu_kernels = 0;
  const auto plan = standard_run.system->plan(standard_run.req.soc, standard_run.req.model,
                                              {standard_run.req.prompt_tokens, standard_run.req.decode_tokens, 1});
  for (const auto& j : plan.jobs) {
    if (j.unit != kernels::Unit::kGpu) continue;
    for (const auto& g : j.ops) gpu_kernels += g.phase == model::Phase::kDecode && g.step == 0 ? 1 : 0;
  }
  ASSERT_GT(gpu_kernels, 0u);
  const double sync_ms = to_ms(standard_run.req.soc.gpu.sync_fixed);
  EXPECT_GE(*standard.decode_ms_per_token - *fast.decode_ms_per_token, 0.5 * static_cast<double>(gpu_kernels) * sync_ms)
      << gpu_kernels << " GPU ops per decode step";
}

TEST(HeteroSystems, TensorLevelDecodeUsesMoreDramBandwidthThanGpuOnly) {
  const auto tensor = HeteroRun("hetero-tensor", "qwen2-0.5b", 64, 2).run();
  const auto gpu = HeteroRun("gpu-only", "qwen2-0.5b", 64, 2).run();
  const double t = tensor.extra.at("decode_dram_gbps").get<double>(), g = gpu.extra.at("decode_dram_gbps").get<double>();
  EXPECT_GT(t, g);
  EXPECT_GT(*tensor.decode_tokens_per_s, *gpu.decode_tokens_per_s);
  EXPECT_TRUE(tensor.extra.at("system_info").contains("decisions"));
}

TEST(HeteroSystems, FunctionalModeComputesTheSplitPlan) {
  HeteroRun s("hetero-tensor", "", 40, 2, {"heterollm.standard_lengths=[32]", "heterollm.row_align=32", "heterollm.force_split=true"});
  // The plan does split matmuls (else this test proves nothing).
  std::uint64_t split = 0;
  const auto info = s.run().extra.at("system_info");
  for (const auto& [kind, count] : info.at("matmul_partitions").items()) {
    if (kind.find("only") == std::string::npos) split += count.get<std::uint64_t>();
  }
  EXPECT_GT(split, 0u);
  s.req.mode = runtime::Mode::kFunctional;
  s.req.seed = 3;
  const auto acc = functional::run_functional(s.req, *s.system, {});
  // Every split decoder matmul is computed as its parts, each with its own unit's kernel and
  // precision (the head is computed whole, at its first part's precision).
  std::uint64_t gpu_parts = 0;
  for (const auto& job : s.system->plan(s.req.soc, s.req.model, {40, 2, 1}).jobs) {
    for (const auto& g : job.ops) gpu_parts += g.op.name.ends_with(".gpu_part") && g.op.name.rfind("lm_head", 0) != 0 ? 1 : 0;
  }
  EXPECT_GT(gpu_parts, 0u);
  EXPECT_EQ(acc.value("split_matmuls", std::uint64_t{0}), gpu_parts);
  HeteroRun g("gpu-only", "", 40, 2);
  g.req.mode = runtime::Mode::kFunctional;
  g.req.seed = 3;
  const auto ref = functional::run_functional(g.req, *g.system, {});
  // The same W4A16 weights; only attention's exp (NPU LUT vs GPU exact) differs.
  EXPECT_LT(acc["logits_rel_error"].get<double>(), 1.5 * ref["logits_rel_error"].get<double>());
}

TEST(HeteroSystems, GpuRenderLoadSlowsGpuOnlyAndMissesFramesMoreThanHetero) {
  auto with_render = [](const std::string& id) {
    HeteroRun s(id, "qwen2-1.5b", 256, 0);
    s.req.gpu_background_frame = 6 * kMillisecond;
    return s.run();
  };
  const auto gpu = with_render("gpu-only"), layer = with_render("hetero-layer");
  EXPECT_GT(*gpu.ttft_ms, *HeteroRun("gpu-only", "qwen2-1.5b", 256, 0).run().ttft_ms);
  const auto missed = [](const report::RunReport& r) { return r.extra.at("gpu_background").at("missed").get<std::uint64_t>(); };
  EXPECT_GT(layer.extra.at("gpu_background").at("frames").get<std::uint64_t>(), 0u);
  EXPECT_GT(missed(gpu), missed(layer));
  EXPECT_FALSE(HeteroRun("gpu-only", "qwen2-1.5b", 64, 0).run().extra.contains("gpu_background"));
}

TEST(HeteroSystems, PredictionModeProfilerPlansARunnableFasterThanGpuPrefill) {
  const double predicted = *HeteroRun("hetero-tensor", "qwen2-0.5b", 256, 1, {"heterollm.profiler=predict"}).run().ttft_ms;
  EXPECT_LT(predicted, *HeteroRun("gpu-only", "qwen2-0.5b", 256, 1).run().ttft_ms);
  EXPECT_THROW(HeteroRun("hetero-tensor", "qwen2-0.5b", 64, 0, {"heterollm.gpu_tflops=2"}), config::ConfigError);
}

TEST(HeteroSystems, RejectsBadOptions) {
  EXPECT_THROW(HeteroRun("hetero-tensor", "qwen2-1.5b", 64, 0, {"heterollm.standard_lengths=[]"}), config::ConfigError);
  EXPECT_THROW(HeteroRun("hetero-tensor", "qwen2-1.5b", 64, 0, {"heterollm.prefill_home=cpu"}), config::ConfigError);
  EXPECT_THROW(HeteroRun("hetero-layer", "qwen2-1.5b", 64, 0, {"heterollm.fast_synk=false"}), config::ConfigError);
}

}  // namespace
}  // namespace socsim::systems
