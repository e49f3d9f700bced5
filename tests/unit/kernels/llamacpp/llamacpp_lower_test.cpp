// llama.cpp's kernels as work: the K-quant vec_dot's micro-op mix, the Q4_K_M tensor types, the
// INIT phases on thread 0, attention over every cached key, each against a hand count.
#include <gtest/gtest.h>

#include <stdexcept>
#include <vector>

#include "kernels/llamacpp/llamacpp_lower.h"
#include "kernels/llamacpp/vec_dot_costs.h"

namespace socsim::kernels::llamacpp {
namespace {

TEST(LlamaCppLower, Q4KMTypesFollowUseMoreBits) {
  // 32 layers: layers 0-3 and 28-31 (first and last eighth) and every third from 6: 6, 9, ..., 27.
  std::vector<std::uint64_t> more;
  for (std::uint64_t i = 0; i < 32; ++i) {
    if (use_more_bits(i, 32)) more.push_back(i);
  }
  EXPECT_EQ(more, (std::vector<std::uint64_t>{0, 1, 2, 3, 6, 9, 12, 15, 18, 21, 24, 27, 28, 29, 30, 31}));
  EXPECT_DOUBLE_EQ(q4_k_m_q6_k_fraction("v_proj", 32), 0.5);
  EXPECT_DOUBLE_EQ(q4_k_m_q6_k_fraction("down_proj", 32), 0.5);
  EXPECT_DOUBLE_EQ(q4_k_m_q6_k_fraction("lm_head", 32), 1.0);
  EXPECT_DOUBLE_EQ(q4_k_m_q6_k_fraction("q_proj", 32), 0.0);
  EXPECT_DOUBLE_EQ(q4_k_m_q6_k_fraction("up_proj", 32), 0.0);
}

TEST(LlamaCppLower, KQuantMatmulHandCount) {
  // 40 x 512 x 256 on Q4_K: INIT quantizes 40 x 512 values at 9 scalar ops on one thread; the
  // dots are 2 x 40 x 512 x 256 ops at 58 micro-ops per 256 MACs (58 / 512 per op), split evenly.
  // Weights: 2 super-blocks per row x 256 rows x 144 B = 73,728 B, streamed once per block of 16
  // columns: ceil(40 / 16) = 3 times; output 40 x 256 x 4 B.
  const auto w = lower_kquant_matmul_cpu({40, 512, 256}, 0.0, 4);
  ASSERT_EQ(w.tasks.size(), 2u);
  EXPECT_EQ(w.threads, 4u);
  const auto& q = w.tasks[0];
  EXPECT_EQ(q.name, "quantize_q8_K");
  EXPECT_DOUBLE_EQ(q.ops, 40.0 * 512 * 9);
  EXPECT_TRUE(q.scalar);
  EXPECT_EQ(q.max_threads, 1u);
  const auto& d = w.tasks[1];
  EXPECT_EQ(d.name, "vec_dot_q4_K_M");
  EXPECT_DOUBLE_EQ(d.ops, 2.0 * 40 * 512 * 256);
  EXPECT_DOUBLE_EQ(d.simd_uops_per_op, 58.0 / 512);
  EXPECT_DOUBLE_EQ(d.simd_uops_per_op_no_dotprod, (58.0 + 16 * 5) / 512);  // 16 SDOTs emulated in 6 each
  EXPECT_TRUE(d.even_split);
  EXPECT_EQ(d.rows, 0u);  // no micro-kernel row blocks: one dot per row and column
  EXPECT_EQ(d.dram_bytes, 73'728u * 3 + 40u * 256 * 4);
  // All Q6_K: 134 micro-ops and 210 B per super-block.
  const auto six = lower_kquant_matmul_cpu({40, 512, 256}, 1.0, 4);
  EXPECT_DOUBLE_EQ(six.tasks[1].simd_uops_per_op, 134.0 / 512);
  EXPECT_EQ(six.tasks[1].dram_bytes, 2u * 256 * 210 * 3 + 40u * 256 * 4);
  EXPECT_THROW((void)lower_kquant_matmul_cpu({0, 512, 256}, 0.0, 4), std::invalid_argument);
  // Rows of 896 (qwen2-0.5b's hidden size) cannot hold 256-value super-blocks: Q5_0 (80 micro-ops,
  // 176 B per 256) and Q8_0 (40, 272 B) instead; half and half here.
  const auto fb = lower_kquant_matmul_cpu({16, 896, 128}, 0.5, 4);
  EXPECT_EQ(fb.tasks[1].name, "vec_dot_q5_0_q8_0");
  EXPECT_DOUBLE_EQ(fb.tasks[1].simd_uops_per_op, (0.5 * 80 + 0.5 * 40) / 512);
  EXPECT_EQ(fb.tasks[1].dram_bytes, static_cast<std::uint64_t>(3.5 * 128 * (0.5 * 176 + 0.5 * 272)) + 16u * 128 * 4);
  EXPECT_THROW((void)lower_kquant_matmul_cpu({1, 512, 256}, 1.5, 4), std::invalid_argument);
}

TEST(LlamaCppLower, AttentionCoversEveryCachedKey) {
  // 2 heads of dim 64, a batch of 3 queries after 40 cached tokens: 43 keys used, padded to 64.
  // Scores: 2 x 3 x 64 = 384 dots of 64 (K.Q) at 12/16 micro-ops per element + 4 for the reduce;
  // visible: 2 x (41 + 42 + 43) = 252 of them, the other 132 masked.
  AttentionShape s;
  s.heads = 2;
  s.kv_heads = 2;
  s.head_dim = 64;
  s.q_len = 3;
  s.q_pos0 = 40;
  s.kv_len = 43;
  EXPECT_EQ(padded_keys(s), 64u);
  const auto w = lower_attention_cpu(s, 4);
  ASSERT_EQ(w.scores.tasks.size(), 2u);
  const auto& qk = w.scores.tasks[1];
  EXPECT_DOUBLE_EQ(qk.ops, 2.0 * 384 * 64);
  EXPECT_DOUBLE_EQ(qk.ops * qk.simd_uops_per_op, 384.0 * (0.75 * 64 + 4));
  EXPECT_EQ(w.scores.tasks[0].max_threads, 1u);  // Q to FP16 in INIT
  ASSERT_EQ(w.softmax.tasks.size(), 2u);
  EXPECT_DOUBLE_EQ(w.softmax.tasks[0].ops, 384.0 * 3);
  EXPECT_DOUBLE_EQ(w.softmax.tasks[0].simd_uops_per_op, 0.25);  // one add or multiply per 4 lanes
  EXPECT_DOUBLE_EQ(w.softmax.tasks[1].ops, 132.0 * 3 + 252.0 * 8);
  EXPECT_TRUE(w.softmax.tasks[1].scalar);
  ASSERT_EQ(w.context.tasks.size(), 2u);
  const auto& pv = w.context.tasks[1];
  // V.P: 2 x 3 x 64 output elements, each a dot over the 64 padded keys.
  EXPECT_DOUBLE_EQ(pv.ops, 2.0 * 384 * 64);
  EXPECT_DOUBLE_EQ(pv.ops * pv.simd_uops_per_op, 384.0 * (0.75 * 64 + 4));
  EXPECT_DOUBLE_EQ(w.context.tasks[0].ops, 384.0);  // the scores to FP16 in INIT
}

}  // namespace
}  // namespace socsim::kernels::llamacpp
