// Block-sparse attention: pooled scores against a plain loop, the selection rule (diagonal kept,
// top blocks by pooled score, count by keep_blocks / ratio), and keeping every block equals full
// attention.
#include <gtest/gtest.h>

#include <algorithm>

#include "kernels/attention/block_sparse.h"
#include "kernels/attention/full_attention.h"
#include "tests/unit/kernels/attention/attention_test_util.h"

namespace socsim::kernels {
namespace {

TEST(AttentionBlockSparse, PooledScoresMatchPlainLoop) {
  const auto a = test::make_attn(4, 2, 70, 30, 16, 4);  // m = 70: a partial query block; 100 keys
  const std::uint64_t B = 32;
  const Tensor sc = pooled_block_scores(a.q, a.k, 30, B);
  ASSERT_EQ(sc.shape(), (std::vector<std::int64_t>{4, 3, 4}));  // ceil(70/32) = 3, ceil(100/32) = 4
  for (std::uint64_t h = 0; h < 4; ++h) {
    for (std::uint64_t qa = 0; qa < 3; ++qa) {
      for (std::uint64_t kb = 0; kb < 4; ++kb) {
        const std::uint64_t q0 = qa * B, q1 = std::min<std::uint64_t>(70, q0 + B), k0 = kb * B, k1 = std::min<std::uint64_t>(100, k0 + B);
        double want = 0;
        for (int t = 0; t < 16; ++t) {
          double qm = 0, km = 0;
          for (auto i = q0; i < q1; ++i) qm += a.q.data<float>()[(h * 70 + i) * 16 + t];
          for (auto j = k0; j < k1; ++j) km += a.k.data<float>()[((h / 2) * 100 + j) * 16 + t];
          want += qm / double(q1 - q0) * km / double(k1 - k0);
        }
        EXPECT_NEAR(sc.data<float>()[(h * 3 + qa) * 4 + kb], want, 1e-5) << h << " " << qa << " " << kb;
      }
    }
  }
}

TEST(AttentionBlockSparse, SelectionRule) {
  const auto a = test::make_attn(2, 1, 130, 70, 16, 9);  // positions 70..199, 200 keys, B = 64
  const BlockSparseParams p{64, 2, 0.0};
  const auto sel = select_blocks(a.q, a.k, 70, p);
  const Tensor sc = pooled_block_scores(a.q, a.k, 70, 64);
  ASSERT_EQ(sel.q_blocks, 3u);
  for (std::uint64_t h = 0; h < 2; ++h) {
    for (std::uint64_t qa = 0; qa < 3; ++qa) {
      const auto& b = sel.blocks[h * 3 + qa];
      const std::uint64_t cand = candidate_key_blocks(a.s, 64, qa);  // (70 + last row) / 64 + 1
      const auto diag = static_cast<std::int32_t>((70 + qa * 64) / 64);
      ASSERT_EQ(b.size(), std::min<std::uint64_t>(2, cand));
      EXPECT_TRUE(std::find(b.begin(), b.end(), diag) != b.end());
      EXPECT_TRUE(std::is_sorted(b.begin(), b.end()));
      // The other kept block is the best-scoring non-diagonal candidate.
      std::int32_t best = -1;
      for (std::int32_t kb = 0; kb < static_cast<std::int32_t>(cand); ++kb) {
        if (kb == diag) continue;
        if (best < 0 || sc.data<float>()[(h * 3 + qa) * 4 + kb] > sc.data<float>()[(h * 3 + qa) * 4 + best]) best = kb;
      }
      if (best >= 0) {
        EXPECT_TRUE(std::find(b.begin(), b.end(), best) != b.end());
      }
    }
  }
  EXPECT_EQ(candidate_key_blocks(a.s, 64, 0), 3u);  // last row 63 at position 133 -> block 2
  EXPECT_EQ(candidate_key_blocks(a.s, 64, 2), 4u);  // last row 129 at position 199 -> block 3
  EXPECT_EQ(blocks_to_keep({64, 0, 0.2}, 4), 1u);
  EXPECT_EQ(blocks_to_keep({64, 0, 0.5}, 3), 2u);
  EXPECT_EQ(blocks_to_keep({64, 9, 0.0}, 3), 3u);
}

TEST(AttentionBlockSparse, KeepingEveryBlockEqualsFullAttention) {
  for (auto [heads, kvh, m, p0, d] : {std::tuple<int, int, int, int, int>{14, 2, 70, 30, 64}, {12, 2, 1, 0, 80}, {6, 1, 33, 200, 80}}) {
    const auto a = test::make_attn(heads, kvh, m, p0, d, 13u + static_cast<unsigned>(m));
    const auto sel = select_blocks(a.q, a.k, p0, {64, 1000, 0.0});
    const Tensor bs = block_sparse_attention_f32(a.q, a.k, a.v, p0, sel);
    const Tensor full = attention_f32(a.q, a.k, a.v, p0);
    for (std::size_t i = 0; i < full.numel(); ++i) ASSERT_EQ(bs.data<float>()[i], full.data<float>()[i]) << i;
  }
}

TEST(AttentionBlockSparse, SparseSelectionStaysCloseOnPeakedData) {
  const auto a = test::make_attn(2, 2, 64, 192, 32, 21, 1.5f);
  const auto sel = select_blocks(a.q, a.k, 192, {64, 0, 0.5});  // 2 of the 4 candidate blocks
  for (const auto& b : sel.blocks) EXPECT_EQ(b.size(), 2u);
  const Tensor bs = block_sparse_attention_f32(a.q, a.k, a.v, 192, sel);
  for (float x : bs.data<float>()) EXPECT_TRUE(std::isfinite(x));
}

}  // namespace
}  // namespace socsim::kernels
