// The closed-form sums of a parts-per-million top-k ratio against the row loop they replace
// (k_for_capped_ratio and topk_row_ops per row), and the floor sum against its definition.
#include "kernels/topk/ratio_row_sums.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <stdexcept>
#include <tuple>
#include <vector>

#include "kernels/attention/attention_lower.h"
#include "kernels/topk/topk.h"

namespace socsim::kernels {
namespace {

RatioRowSums by_rows(double ratio, std::uint64_t v_first, std::uint64_t v_last) {
  RatioRowSums s;
  for (std::uint64_t v = v_first; v <= v_last; ++v) {
    const std::uint64_t k = k_for_ratio(ratio, v);
    s.kept += k;
    s.ops += static_cast<std::uint64_t>(topk_row_ops(v, k));
  }
  return s;
}

double ratio_of(std::uint64_t ppm) { return static_cast<double>(ppm) / 1e6; }

TEST(FloorSum, MatchesItsDefinition) {
  std::mt19937_64 rng(7);
  for (int t = 0; t < 2000; ++t) {
    const std::uint64_t n = rng() % 300, m = 1 + rng() % 1000, a = rng() % 3000, b = rng() % 3000;
    std::uint64_t want = 0;
    for (std::uint64_t i = 0; i < n; ++i) want += (a * i + b) / m;
    ASSERT_EQ(floor_sum(n, m, a, b), want) << n << " " << m << " " << a << " " << b;
  }
  // At the scale the top-k uses: m = 1e6, thousands of rows, offsets of a long context.
  for (int t = 0; t < 40; ++t) {
    const std::uint64_t n = rng() % 5000, m = 1000000, a = rng() % 1000001, b = rng() % 2000000000000ull;
    std::uint64_t want = 0;
    for (std::uint64_t i = 0; i < n; ++i) want += (a * i + b) / m;
    ASSERT_EQ(floor_sum(n, m, a, b), want) << n << " " << a << " " << b;
  }
  EXPECT_THROW(floor_sum(3, 0, 1, 1), std::invalid_argument);
}

TEST(RatioAsPpm, RecognisesExactlyTheRatiosOfWholePartsPerMillion) {
  EXPECT_EQ(ratio_as_ppm(0.0), 0u);
  EXPECT_EQ(ratio_as_ppm(0.2), 200000u);
  EXPECT_EQ(ratio_as_ppm(ratio_of(123457)), 123457u);
  EXPECT_EQ(ratio_as_ppm(1.0), 1000000u);
  EXPECT_EQ(ratio_as_ppm(3.5), 1000000u);  // capped, as k_for_ratio caps
  EXPECT_FALSE(ratio_as_ppm(0.2 + 1e-12));  // not a whole number of ppm: the caller loops
  EXPECT_FALSE(ratio_as_ppm(1.0 / 3.0));
  EXPECT_FALSE(ratio_as_ppm(-0.1));
  EXPECT_FALSE(ratio_as_ppm(std::nan("")));
  EXPECT_EQ(ratio_as_ppm(-0.0), 0u);
  EXPECT_FALSE(ratio_as_ppm(1e-300));
  EXPECT_FALSE(ratio_as_ppm(std::nextafter(1.0, 0.0)));
  EXPECT_EQ(ratio_as_ppm(std::numeric_limits<double>::infinity()), 1000000u);
  EXPECT_EQ(ratio_as_ppm(ratio_of(999999)), 999999u);
}

// Every v of the first 4096 for a spread of ratios, then random ranges up to 2^21 keys.
TEST(RatioRowSums, EqualTheRowLoopForEveryRatioAndRange) {
  const std::vector<std::uint64_t> ppms = {0, 1, 2, 3, 999, 1000, 99999, 100000, 123457, 199999, 200000, 200001,
                                           250000, 333333, 333334, 499999, 500000, 666667, 999999, 1000000};
  for (const auto ppm : ppms) {
    for (std::uint64_t first = 1; first <= 4096; first += 97) {
      const auto want = by_rows(ratio_of(ppm), first, 4096);
      const auto got = ratio_row_sums(ppm, first, 4096);
      ASSERT_EQ(got.kept, want.kept) << ppm << " ppm from " << first;
      ASSERT_EQ(got.ops, want.ops) << ppm << " ppm from " << first;
    }
  }
  std::mt19937_64 rng(11);
  for (int t = 0; t < 300; ++t) {
    const std::uint64_t ppm = rng() % 1000001;
    const std::uint64_t last = 1 + rng() % kMaxExactVisible, first = 1 + rng() % last;
    const std::uint64_t from = std::max(first, last > 3000 ? last - 3000 : 1);  // keep the loop short
    const auto want = by_rows(ratio_of(ppm), from, last);
    const auto got = ratio_row_sums(ppm, from, last);
    ASSERT_EQ(got.kept, want.kept) << ppm << " ppm over [" << from << ", " << last << "]";
    ASSERT_EQ(got.ops, want.ops) << ppm << " ppm over [" << from << ", " << last << "]";
  }
  // The bound itself, every key count of the last 20,000 below it.
  for (const auto ppm : {std::uint64_t{1}, std::uint64_t{123457}, std::uint64_t{999999}}) {
    const auto want = by_rows(ratio_of(ppm), kMaxExactVisible - 20000, kMaxExactVisible);
    const auto got = ratio_row_sums(ppm, kMaxExactVisible - 20000, kMaxExactVisible);
    EXPECT_EQ(got.kept, want.kept) << ppm;
    EXPECT_EQ(got.ops, want.ops) << ppm;
  }
}

TEST(RatioRowSums, RejectsWhatItCannotComputeExactly) {
  EXPECT_THROW(ratio_row_sums(1000001, 1, 10), std::invalid_argument);
  EXPECT_THROW(ratio_row_sums(5, 0, 10), std::invalid_argument);
  EXPECT_THROW(ratio_row_sums(5, 1, kMaxExactVisible + 1), std::invalid_argument);
  const auto empty = ratio_row_sums(5, 10, 9);
  EXPECT_EQ(empty.kept, 0u);
  EXPECT_EQ(empty.ops, 0u);
}

// The lowerings that use it give what their row loops give, for ratios that are and are not
// whole parts per million (the latter still loop), across chunk positions of a causal prompt.
TEST(RatioRowSums, TopKLoweringAndKeptTotalsMatchTheirRowLoops) {
  for (const double ratio : {ratio_of(200000), ratio_of(123457), 0.2 + 1e-12, 1.0 / 3.0, 1.0}) {
    for (const std::uint64_t rows : {1, 7, 128, 1000}) {
      for (const std::uint64_t p0 : {0, 1, 500, 3000}) {
        const std::uint64_t n = p0 + rows + (rows % 2 ? 0 : 37);  // sometimes keys beyond the diagonal
        double ops = 0;
        std::uint64_t bytes = 0, kept = 0;
        for (std::uint64_t r = 0; r < rows; ++r) {
          const std::uint64_t vis = visible_keys(n, p0, r), k = k_for_ratio(ratio, vis);
          ops += topk_row_ops(vis, k);
          bytes += vis * 4 + k * 4;
          kept += k_for_ratio(ratio, p0 + r + 1);
        }
        const auto w = lower_topk_cpu_ratio({rows, n, p0, 4}, ratio, 2);
        ASSERT_EQ(w.tasks.size(), 1u);
        EXPECT_EQ(w.tasks[0].ops, ops) << ratio << " " << rows << " " << p0;
        EXPECT_EQ(w.tasks[0].dram_bytes, bytes) << ratio << " " << rows << " " << p0;
        AttentionShape s;
        s.heads = 3, s.kv_heads = 1, s.q_len = rows, s.kv_len = p0 + rows, s.head_dim = 64, s.q_pos0 = p0;
        EXPECT_EQ(sparse_kept_total(s, ratio), kept * 3) << ratio << " " << rows << " " << p0;
      }
    }
  }
  // Every row past the diagonal's end (p0 >= n), and rows beyond the exact bound (the loop again).
  for (const auto& [rows, n, p0] : {std::tuple<std::uint64_t, std::uint64_t, std::uint64_t>{50, 100, 100},
                                    {50, 100, 300},
                                    {40, kMaxExactVisible + 30, kMaxExactVisible - 10}}) {
    const double ratio = ratio_of(123457);
    double ops = 0;
    std::uint64_t bytes = 0;
    for (std::uint64_t r = 0; r < rows; ++r) {
      const std::uint64_t vis = visible_keys(n, p0, r), k = k_for_ratio(ratio, vis);
      ops += topk_row_ops(vis, k);
      bytes += vis * 4 + k * 4;
    }
    const auto w = lower_topk_cpu_ratio({rows, n, p0, 4}, ratio, 1);
    EXPECT_EQ(w.tasks[0].ops, ops) << rows << " " << n << " " << p0;
    EXPECT_EQ(w.tasks[0].dram_bytes, bytes) << rows << " " << n << " " << p0;
  }
}

}  // namespace
}  // namespace socsim::kernels
