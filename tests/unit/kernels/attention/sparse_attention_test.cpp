// Sparse attention over given keys: every visible key reproduces full attention bit for bit, a
// subset matches a double reference over that subset, and the shadowAttn pipeline (INT8
// estimation -> top-k -> sparse attention) runs end to end.
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>

#include "kernels/attention/full_attention.h"
#include "kernels/attention/int8_ops.h"
#include "kernels/attention/sparse_attention.h"
#include "tests/unit/kernels/attention/attention_test_util.h"

namespace socsim::kernels {
namespace {

RowIndices all_visible(const AttentionShape& s) {
  RowIndices idx(s.heads * s.q_len);
  for (std::uint64_t h = 0; h < s.heads; ++h) {
    for (std::uint64_t i = 0; i < s.q_len; ++i) {
      auto& r = idx[h * s.q_len + i];
      r.resize(s.visible(i));
      std::iota(r.begin(), r.end(), 0);
    }
  }
  return idx;
}

TEST(AttentionSparse, AllVisibleKeysEqualFullAttention) {
  for (auto [heads, kvh, m, p0, d] : {std::tuple<int, int, int, int, int>{14, 2, 3, 40, 64}, {12, 2, 33, 0, 80}, {1, 1, 1, 0, 8}}) {
    const auto a = test::make_attn(heads, kvh, m, p0, d, 3u + static_cast<unsigned>(m));
    const Tensor full = attention_f32(a.q, a.k, a.v, p0);
    const Tensor sparse = sparse_attention_f32(a.q, a.k, a.v, p0, all_visible(a.s));
    for (std::size_t i = 0; i < full.numel(); ++i) ASSERT_EQ(full.data<float>()[i], sparse.data<float>()[i]);
  }
}

TEST(AttentionSparse, SubsetMatchesReferenceOverSubset) {
  const auto a = test::make_attn(6, 1, 5, 20, 80, 17);  // GQA ratio 6
  const auto& s = a.s;
  RowIndices idx(s.heads * s.q_len);
  for (std::uint64_t r = 0; r < idx.size(); ++r) {
    const std::uint64_t vis = s.visible(r % s.q_len);
    for (std::uint64_t j = r % 3; j < vis; j += 3) idx[r].push_back(static_cast<std::int32_t>(j));  // every third key
  }
  const Tensor o = sparse_attention_f32(a.q, a.k, a.v, s.q_pos0, idx);
  const double scale = 1 / std::sqrt(80.0);
  for (std::uint64_t h = 0; h < s.heads; ++h) {
    for (std::uint64_t i = 0; i < s.q_len; ++i) {
      const auto& keys = idx[h * s.q_len + i];
      std::vector<double> w;
      double mx = -INFINITY, sum = 0;
      for (auto j : keys) {
        double acc = 0;
        for (int t = 0; t < 80; ++t) acc += double(a.q.data<float>()[(h * s.q_len + i) * 80 + t]) * a.k.data<float>()[j * 80 + t];
        w.push_back(acc * scale);
        mx = std::max(mx, w.back());
      }
      for (auto& x : w) sum += x = std::exp(x - mx);
      for (int c = 0; c < 80; ++c) {
        double want = 0;
        for (std::size_t q = 0; q < keys.size(); ++q) want += w[q] / sum * a.v.data<float>()[keys[q] * 80 + c];
        ASSERT_NEAR(o.data<float>()[(h * s.q_len + i) * 80 + c], want, 1e-5 * test::max_abs(a.v));
      }
    }
  }
}

TEST(AttentionSparse, RejectsInvisibleKeysAndWrongCounts) {
  const auto a = test::make_attn(2, 2, 2, 0, 8, 1);
  RowIndices idx = all_visible(a.s);
  idx[0].push_back(1);  // row 0 (position 0) cannot see key 1
  EXPECT_THROW(sparse_attention_f32(a.q, a.k, a.v, 0, idx), std::invalid_argument);
  idx.pop_back();
  EXPECT_THROW(sparse_attention_f32(a.q, a.k, a.v, 0, idx), std::invalid_argument);
}

TEST(AttentionSparse, ShadowAttnPipelineKeepsMostOfTheOutput) {
  // Estimation on INT8 Q.K^T (per-tensor scales), top-k over raw INT32 scores with causal
  // positions skipped, exact FP32 attention over the kept keys. Peaked attention (sigma 2) keeps
  // nearly all the mass in the top 25%.
  const auto a = test::make_attn(2, 1, 40, 24, 64, 8, 2.0f);
  const auto qq = quantize_per_tensor_i8(a.q), kq = quantize_per_tensor_i8(a.k);
  const Tensor scores = qk_scores_i32(qq.values, kq.values, a.s.q_pos0);
  RowIndices idx;
  for (std::uint64_t h = 0; h < a.s.heads; ++h) {
    Tensor head = Tensor::matrix(40, static_cast<std::int64_t>(a.s.keys_used()), ElemType::kI32);
    std::copy_n(scores.data<std::int32_t>().begin() + h * head.numel(), head.numel(), head.data<std::int32_t>().begin());
    for (auto& r : topk_causal_ratio(head, a.s.q_pos0, 0.25)) idx.push_back(std::move(r));
  }
  const Tensor sparse = sparse_attention_f32(a.q, a.k, a.v, a.s.q_pos0, idx);
  const Tensor full = attention_f32(a.q, a.k, a.v, a.s.q_pos0);
  double err = 0, norm = 0;
  for (std::size_t i = 0; i < full.numel(); ++i) {
    err += std::pow(sparse.data<float>()[i] - full.data<float>()[i], 2);
    norm += std::pow(full.data<float>()[i], 2);
  }
  EXPECT_LT(std::sqrt(err / norm), 0.35);
}

}  // namespace
}  // namespace socsim::kernels
