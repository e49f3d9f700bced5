// shadowAttn's estimation and top-k recall on hand cases.
#include <gtest/gtest.h>

#include <random>

#include "kernels/attention/full_attention.h"
#include "sim/functional/accuracy.h"
#include "sim/systems/shadowattn/estimation.h"

namespace socsim::systems::shadowattn {
namespace {

using kernels::ElemType;
using kernels::Tensor;

Tensor mat(std::int64_t r, std::int64_t c, std::vector<float> v) {
  Tensor t({r, c}, ElemType::kF32);
  std::copy(v.begin(), v.end(), t.data<float>().begin());
  return t;
}

TEST(ShadowAttnRecall, HandCases) {
  EXPECT_DOUBLE_EQ(topk_recall({{0, 1}, {2}}, {{1, 0}, {2}}), 1.0);      // order does not matter
  EXPECT_DOUBLE_EQ(topk_recall({{0, 3}, {2}}, {{0, 1}, {4}}), 1.0 / 3);  // one of three
  EXPECT_DOUBLE_EQ(topk_recall({{}, {}}, {{}, {}}), 1.0);
  EXPECT_THROW(topk_recall({{0}}, {{0}, {1}}), std::invalid_argument);
}

TEST(ShadowAttnRecall, Int8EstimationAndSaturation) {
  // q = [1, 0], keys: 3, -1, 2, 0.5 along the first axis. FP32 ranking of row 0 (p0 = 3: all four
  // visible): 0, 2, 3, 1; k = ceil(0.5 x 4) = 2 -> {0, 2}.
  const Tensor q = mat(1, 2, {1, 0});
  const Tensor k = mat(4, 2, {3, 0, -1, 0, 2, 0, 0.5f, 0});
  const Tensor v = mat(4, 2, {1, 0, 0, 1, 1, 1, 0, 0});
  const auto good = sparse_head(q, k, v, 3, 0.5, nullptr);
  EXPECT_EQ(good.kept[0], (std::vector<std::int32_t>{0, 2}));
  EXPECT_DOUBLE_EQ(good.recall, 1.0);
  // Scales from the data: INT8 keeps the ranking.
  const ScalePair fit{absmax_scale(q), absmax_scale(k)};
  const auto est = estimate_int8(q, k, fit);
  EXPECT_EQ(est.data<std::int32_t>()[0], 127 * 127);
  EXPECT_DOUBLE_EQ(sparse_head(q, k, v, 3, 0.5, &fit).recall, 1.0);
  // A bucket whose K scale is far too small saturates keys 0 and 2 alike (both 127): the tie goes
  // to the lower index, still {0, 2}; one too small for Q zeroes everything: ties keep 0, 1.
  const ScalePair tiny_k{fit.q, fit.k / 100};
  EXPECT_DOUBLE_EQ(sparse_head(q, k, v, 3, 0.5, &tiny_k).recall, 1.0);
  const ScalePair huge_q{1000.0, fit.k};
  const auto bad = sparse_head(q, k, v, 3, 0.5, &huge_q);
  EXPECT_EQ(bad.kept[0], (std::vector<std::int32_t>{0, 1}));
  EXPECT_DOUBLE_EQ(bad.recall, 0.5);
}

TEST(ShadowAttnRecall, CausalRowsAndFullRatioIsExact) {
  std::mt19937 rng(3);
  std::normal_distribution<float> nd;
  const std::int64_t m = 6, n = 10, d = 8;
  Tensor q({m, d}, ElemType::kF32), k({n, d}, ElemType::kF32), v({n, d}, ElemType::kF32);
  for (auto* t : {&q, &k, &v}) {
    for (auto& x : t->data<float>()) x = nd(rng);
  }
  const auto r = sparse_head(q, k, v, n - m, 0.2, nullptr);
  for (std::int64_t i = 0; i < m; ++i) {
    const std::uint64_t visible = static_cast<std::uint64_t>(n - m + i + 1);
    EXPECT_EQ(r.kept[static_cast<std::size_t>(i)].size(), kernels::k_for_ratio(0.2, visible));
    for (auto j : r.kept[static_cast<std::size_t>(i)]) EXPECT_LT(static_cast<std::uint64_t>(j), visible);  // causal
  }
  // Ratio 1 keeps every visible key: full attention.
  const auto all = sparse_head(q, k, v, n - m, 1.0, nullptr);
  Tensor q3({1, m, d}, ElemType::kF32), k3({1, n, d}, ElemType::kF32), v3({1, n, d}, ElemType::kF32);
  std::copy(q.data<float>().begin(), q.data<float>().end(), q3.data<float>().begin());
  std::copy(k.data<float>().begin(), k.data<float>().end(), k3.data<float>().begin());
  std::copy(v.data<float>().begin(), v.data<float>().end(), v3.data<float>().begin());
  const Tensor full = kernels::attention_f32(q3, k3, v3, n - m);
  Tensor full2({m, d}, ElemType::kF32);
  std::copy(full.data<float>().begin(), full.data<float>().end(), full2.data<float>().begin());
  EXPECT_LT(functional::relative_error(all.out, full2), 1e-6);
  EXPECT_GT(functional::relative_error(r.out, full2), 1e-6);
}

}  // namespace
}  // namespace socsim::systems::shadowattn
