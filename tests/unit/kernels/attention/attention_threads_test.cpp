// The attention kernels run bands of heads on the GEMM threads when a call is large
// (head_bands.h): the thread count must change no number. Each kernel here runs on 1, 2 and 3
// threads (ScopedGemmThreads, whatever cores the host has) past the parallel threshold, with GQA
// (heads sharing a KV head across a band's edge) and a head count that 2 and 3 split unevenly.
#include <gtest/gtest.h>

#include <bit>
#include <cstdint>
#include <functional>
#include <string>

#include "kernels/attention/block_sparse.h"
#include "kernels/attention/flash_attention.h"
#include "kernels/attention/full_attention.h"
#include "kernels/attention/head_bands.h"
#include "kernels/attention/int8_attention.h"
#include "kernels/attention/int8_ops.h"
#include "kernels/attention/sparse_attention.h"
#include "kernels/gemm/gemm_dims.h"
#include "tests/unit/kernels/attention/attention_test_util.h"

namespace socsim::kernels {
namespace {

void expect_same_on_any_threads(const std::string& what, const std::function<Tensor(const test::AttnData&)>& kernel) {
  const auto a = test::make_attn(7, 1, 150, 40, 64, 9, 1.5f);
  ASSERT_GE(2.0 * 7 * static_cast<double>(a.s.visible_total()) * 64, kAttentionParallelMacs) << "the call must be large enough to split";
  Tensor one;
  {
    const ScopedGemmThreads pin(1);
    one = kernel(a);
  }
  for (const unsigned threads : {2u, 3u}) {
    const ScopedGemmThreads pin(threads);
    const Tensor many = kernel(a);
    ASSERT_EQ(many.numel(), one.numel());
    for (std::size_t i = 0; i < one.numel(); ++i) {
      ASSERT_EQ(std::bit_cast<std::uint32_t>(many.data<float>()[i]), std::bit_cast<std::uint32_t>(one.data<float>()[i]))
          << what << ": element " << i << " on " << threads << " threads";
    }
  }
}

TEST(AttentionThreads, FlashAttentionGivesTheSameBitsOnAnyThreadCount) {
  const LutExpTable lut;
  for (const ExpVariant e : {ExpVariant::kLut, ExpVariant::kPoly, ExpVariant::kExact}) {
    expect_same_on_any_threads("flash", [&](const test::AttnData& a) { return flash_attention(a.q, a.k, a.v, a.s.q_pos0, {64, 32, e}, &lut); });
  }
  expect_same_on_any_threads("flash baseline",
                             [&](const test::AttnData& a) { return flash_attention_baseline(a.q, a.k, a.v, a.s.q_pos0, {32, 32, ExpVariant::kLut}, &lut); });
}

TEST(AttentionThreads, Fp32AttentionGivesTheSameBitsOnAnyThreadCount) {
  expect_same_on_any_threads("fp32", [](const test::AttnData& a) { return attention_f32(a.q, a.k, a.v, a.s.q_pos0); });
}

TEST(AttentionThreads, Int8AttentionGivesTheSameBitsOnAnyThreadCount) {
  for (const PvPrecision pv : {PvPrecision::kInt8, PvPrecision::kFloat}) {
    expect_same_on_any_threads("int8", [&](const test::AttnData& a) { return attention_int8(a.q, a.k, a.v, a.s.q_pos0, {pv, {}}); });
  }
}

// Raw INT32 scores (shadowAttn's estimation on the NPU): compared as floats of their bits.
TEST(AttentionThreads, Int8ScoresGiveTheSameBitsOnAnyThreadCount) {
  expect_same_on_any_threads("int8 scores", [](const test::AttnData& a) {
    const Tensor scores = qk_scores_i32(quantize_per_tensor_i8(a.q).values, quantize_per_tensor_i8(a.k).values, a.s.q_pos0);
    Tensor bits(scores.shape(), ElemType::kF32);
    for (std::size_t i = 0; i < scores.numel(); ++i) bits.data<float>()[i] = std::bit_cast<float>(scores.data<std::int32_t>()[i]);
    return bits;
  });
}

// Sparse attention over each row's own key list (every third visible key, and the last).
TEST(AttentionThreads, SparseAttentionGivesTheSameBitsOnAnyThreadCount) {
  expect_same_on_any_threads("sparse", [](const test::AttnData& a) {
    RowIndices idx(a.s.heads * a.s.q_len);
    for (std::uint64_t r = 0; r < idx.size(); ++r) {
      const std::uint64_t vis = a.s.visible(r % a.s.q_len);
      for (std::uint64_t j = (r % 3); j < vis; j += 3) idx[r].push_back(static_cast<std::int32_t>(j));
      if (idx[r].empty() || static_cast<std::uint64_t>(idx[r].back()) != vis - 1) idx[r].push_back(static_cast<std::int32_t>(vis - 1));
    }
    return sparse_attention_f32(a.q, a.k, a.v, a.s.q_pos0, idx);
  });
}

TEST(AttentionThreads, BlockSparseAttentionGivesTheSameBitsOnAnyThreadCount) {
  expect_same_on_any_threads("block sparse", [](const test::AttnData& a) {
    const BlockSelection sel = select_blocks(a.q, a.k, a.s.q_pos0, {32, 0, 0.4});
    return block_sparse_attention_f32(a.q, a.k, a.v, a.s.q_pos0, sel);
  });
}

// A bad index is reported before any head runs, the same on any thread count.
TEST(AttentionThreads, SparseAttentionNamesTheFirstBadIndexOnAnyThreadCount) {
  const auto a = test::make_attn(7, 1, 150, 40, 64, 9, 1.5f);
  RowIndices idx(a.s.heads * a.s.q_len, std::vector<std::int32_t>{0});
  idx[3 * a.s.q_len + 5] = {46};   // row 5 sees 46 keys (0..45)
  idx[6 * a.s.q_len + 2] = {-1};
  for (const unsigned threads : {1u, 3u}) {
    const ScopedGemmThreads pin(threads);
    try {
      (void)sparse_attention_f32(a.q, a.k, a.v, a.s.q_pos0, idx);
      FAIL() << "expected an error on " << threads << " threads";
    } catch (const std::invalid_argument& e) {
      EXPECT_STREQ(e.what(), "sparse attention: key 46 is not visible to query row 5 (position 45)");
    }
  }
}

// The pin itself: it sets the count for its lifetime and restores the one before.
TEST(AttentionThreads, ScopedGemmThreadsRestoresThePreviousCount) {
  const unsigned host = default_gemm_threads();
  {
    const ScopedGemmThreads outer(3);
    EXPECT_EQ(default_gemm_threads(), 3u);
    {
      const ScopedGemmThreads inner(1);
      EXPECT_EQ(default_gemm_threads(), 1u);
    }
    EXPECT_EQ(default_gemm_threads(), 3u);
  }
  EXPECT_EQ(default_gemm_threads(), host);
}

}  // namespace
}  // namespace socsim::kernels
