// Top-k `compute` against a plain reference (stable sort of the visible keys), ties, causal
// skipping, INT32 scores and ratios; `lower` against hand counts.
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <random>

#include "kernels/topk/topk.h"

namespace socsim::kernels {
namespace {

std::vector<std::int32_t> reference_row(const std::vector<double>& s, std::size_t vis, std::size_t k) {
  std::vector<std::int32_t> idx(vis);
  std::iota(idx.begin(), idx.end(), 0);
  std::stable_sort(idx.begin(), idx.end(), [&](std::int32_t a, std::int32_t b) { return s[a] > s[b]; });
  idx.resize(std::min(k, vis));
  return idx;
}

TEST(TopK, MatchesReferenceWithCausalSkip) {
  for (auto [rows, n, p0, k] : {std::tuple<int, int, int, int>{37, 37, 0, 5}, {5, 100, 95, 16}, {3, 50, 10, 64}}) {
    Tensor s = Tensor::matrix(rows, n, ElemType::kF32);
    std::mt19937 rng(static_cast<unsigned>(n + k));
    std::uniform_int_distribution<int> d(-20, 20);  // small range: many ties
    for (float& v : s.data<float>()) v = static_cast<float>(d(rng)) * 0.5f;
    const auto got = topk_causal(s, static_cast<std::uint64_t>(p0), static_cast<std::uint64_t>(k));
    ASSERT_EQ(got.size(), static_cast<std::size_t>(rows));
    for (int r = 0; r < rows; ++r) {
      std::vector<double> row(s.data<float>().begin() + r * n, s.data<float>().begin() + (r + 1) * n);
      const std::size_t vis = std::min<std::size_t>(n, p0 + r + 1);
      EXPECT_EQ(got[r], reference_row(row, vis, k)) << "row " << r;
      for (auto j : got[r]) EXPECT_LE(j, p0 + r);  // never a future key
    }
  }
}

TEST(TopK, TiesPickLowerIndexAndFutureKeysNeverWin) {
  Tensor s = Tensor::matrix(2, 6, ElemType::kF32);
  // Row 0 (position p0 = 2) sees keys 0..2; the huge scores at 3..5 are in its future.
  const float v[12] = {1, 3, 3, 100, 100, 100, 2, 2, 2, 2, 9, 9};
  std::copy(v, v + 12, s.data<float>().begin());
  const auto got = topk_causal(s, 2, 2);
  EXPECT_EQ(got[0], (std::vector<std::int32_t>{1, 2}));
  EXPECT_EQ(got[1], (std::vector<std::int32_t>{0, 1}));  // row 1 sees 0..3, all ties
}

TEST(TopK, Int32ScoresAndNaN) {
  Tensor s = Tensor::matrix(1, 5, ElemType::kI32);
  const std::int32_t v[5] = {-7, 40000, 12, 40000, -1};
  std::copy(v, v + 5, s.data<std::int32_t>().begin());
  EXPECT_EQ(topk_causal(s, 4, 3)[0], (std::vector<std::int32_t>{1, 3, 2}));
  Tensor f = Tensor::matrix(1, 3, ElemType::kF32);
  f.data<float>()[0] = std::nanf(""), f.data<float>()[1] = -5, f.data<float>()[2] = -6;
  EXPECT_EQ(topk_causal(f, 2, 3)[0], (std::vector<std::int32_t>{1, 2, 0}));  // NaN ranks last
  EXPECT_THROW(topk_causal(Tensor::matrix(1, 3, ElemType::kF16), 0, 1), std::invalid_argument);
}

TEST(TopK, KvLengthOneAndRatio) {
  Tensor one = Tensor::matrix(1, 1, ElemType::kF32);
  EXPECT_EQ(topk_causal(one, 0, 4)[0], (std::vector<std::int32_t>{0}));
  // ratio 0.2 of the visible keys, rounded up: rows see 1..10 keys -> k = 1,1,1,1,1,2,2,2,2,2.
  Tensor s = Tensor::matrix(10, 10, ElemType::kF32);
  for (int i = 0; i < 100; ++i) s.data<float>()[i] = static_cast<float>(i % 10);
  const auto got = topk_causal_ratio(s, 0, 0.2);
  for (int r = 0; r < 10; ++r) EXPECT_EQ(got[r].size(), k_for_ratio(0.2, r + 1)) << r;
  EXPECT_EQ(k_for_ratio(0.2, 5), 1u);
  EXPECT_EQ(k_for_ratio(0.2, 6), 2u);
  EXPECT_EQ(k_for_ratio(3.0, 6), 6u);  // capped at 1
  EXPECT_EQ(got[9], (std::vector<std::int32_t>{9, 8}));
  EXPECT_THROW(topk_causal_ratio(s, 0, -0.1), std::invalid_argument);
}

TEST(TopKLower, HandCounts) {
  // 4 rows over n = 100 keys at p0 = 96: every row sees 97..100 keys. k = 16 -> ceil(log2 16) = 4.
  //   ops = (97 + 98 + 99 + 100) * 4 = 1576; bytes = 394 * 4 (scores) + 4 * 16 * 4 (indices) = 1832.
  auto w = lower_topk_cpu({4, 100, 96, 4}, 16, 1);
  ASSERT_EQ(w.tasks.size(), 1u);
  EXPECT_DOUBLE_EQ(w.tasks[0].ops, 1576);
  EXPECT_EQ(w.tasks[0].dram_bytes, 1832u);
  // Prefill chunk from 0: 5 rows over 5 keys, k = 3 (ceil(log2 3) = 2): visible 1..5, k' = 1,2,3,3,3.
  //   ops = 1*1 + 2*1 + 3*2 + 4*2 + 5*2 = 27; bytes = 15 * 4 + (1+2+3+3+3) * 4 = 108.
  w = lower_topk_cpu({5, 5, 0, 4}, 3, 2);
  EXPECT_DOUBLE_EQ(w.tasks[0].ops, 27);
  EXPECT_EQ(w.tasks[0].dram_bytes, 108u);
  EXPECT_EQ(w.threads, 2u);
  // Ratio 0.5 over 10 rows from 0: k' = ceil(vis/2) = 1,1,2,2,3,3,4,4,5,5; depth 1,1,1,1,2,2,2,2,3,3
  //   ops = 1+2+3+4 + (5+6+7+8)*2 + (9+10)*3 = 10 + 52 + 57 = 119.
  EXPECT_DOUBLE_EQ(lower_topk_cpu_ratio({10, 10, 0, 4}, 0.5, 1).tasks[0].ops, 119);
}

// The ratio lowering sums its rows in integers and counts the rows that see all n keys at once;
// it must equal the per-row definition (visible_keys, k_for_ratio, topk_row_ops, summed row by
// row in double) to the bit: rows before, across and past the diagonal, p0 beyond n, ratios 0,
// tiny, 1 and above 1.
TEST(TopKLower, RatioLoweringIsTheRowByRowSum) {
  std::mt19937 gen(5);
  std::uniform_int_distribution<std::uint64_t> dim(1, 700);
  const double ratios[] = {0.0, 1e-4, 0.05, 0.2, 0.37, 0.5, 0.9, 1.0, 1.7};
  for (int trial = 0; trial < 300; ++trial) {
    const TopKShape s{dim(gen), dim(gen), trial % 5 == 0 ? dim(gen) + 700 : dim(gen) % 300, trial % 2 == 0 ? 4u : 1u};
    const double ratio = ratios[static_cast<std::size_t>(trial) % std::size(ratios)];
    double ops = 0;
    std::uint64_t bytes = 0;
    for (std::uint64_t r = 0; r < s.rows; ++r) {
      const std::uint64_t vis = visible_keys(s.n, s.p0, r), k = k_for_ratio(ratio, vis);
      ops += topk_row_ops(vis, k);
      bytes += vis * s.score_bytes + k * 4;
    }
    const auto w = lower_topk_cpu_ratio(s, ratio, 2);
    ASSERT_EQ(w.tasks.size(), 1u);
    EXPECT_EQ(w.tasks[0].ops, ops) << s.rows << " rows, n " << s.n << ", p0 " << s.p0 << ", ratio " << ratio;
    EXPECT_EQ(w.tasks[0].dram_bytes, bytes) << s.rows << " rows, n " << s.n << ", p0 " << s.p0 << ", ratio " << ratio;
  }
}

TEST(TopKLower, GpuRadixSelectHandCounts) {
  // 4 rows over n = 100 at p0 = 96: visible 97..100 (394 keys); ratio 0.5 -> k' = 49, 49, 50, 50.
  //   ops = 14 per key (4 digit passes x 3 + 2 for the write pass) = 5516;
  //   bytes = 394 * 4 (scores) + 198 * 4 (indices) = 2368. One streaming FP32 kernel.
  const auto w = lower_topk_gpu_ratio({4, 100, 96, 4}, 0.5);
  ASSERT_EQ(w.kernels.size(), 1u);
  EXPECT_DOUBLE_EQ(w.kernels[0].flops, 5516);
  EXPECT_EQ(w.kernels[0].dram_bytes, 2368u);
  EXPECT_TRUE(w.kernels[0].streaming);
  EXPECT_EQ(w.kernels[0].rows, 0u);
  // Nothing kept, nothing done; a bad ratio is refused.
  EXPECT_DOUBLE_EQ(lower_topk_gpu_ratio({4, 100, 96, 4}, 0.0).kernels[0].flops, 0);
  EXPECT_THROW(lower_topk_gpu_ratio({4, 100, 96, 4}, -1), std::invalid_argument);
}

}  // namespace
}  // namespace socsim::kernels
