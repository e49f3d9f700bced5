// Decode attention `lower` (attention_decode_lower.h) against hand counts.
#include "kernels/attention/attention_decode_lower.h"

#include <gtest/gtest.h>

namespace socsim::kernels {
namespace {

// 14 heads / 2 kv heads of 64, one query at position 99: VT = 100.
const AttentionShape kDecode{14, 2, 64, 1, 99, 100};

TEST(AttentionDecodeLower, TheFullKernelAsMatVecKernels) {
  // qk: 14 * 2*64*100 = 179,200; Q 14*64*4 = 3584 + K once per query head, FP16: 14*100*64*2 = 179,200 B.
  // softmax: 14 * (100*20 + 1) = 28,014. pv: 179,200 flops, V + O 182,784 B.
  const auto c = lower_attention_decode_cpu(kDecode, 3);
  ASSERT_EQ(c.tasks.size(), 3u);
  EXPECT_EQ(c.threads, 3u);
  EXPECT_DOUBLE_EQ(c.tasks[0].ops, 179'200);
  EXPECT_EQ(c.tasks[0].dram_bytes, 182'784u);
  EXPECT_DOUBLE_EQ(c.tasks[1].ops, 28'014);
  EXPECT_EQ(c.tasks[2].dram_bytes, 182'784u);
  for (const auto& t : c.tasks) EXPECT_EQ(t.rows, 0u) << t.name;  // not padded to the GEMM row block
  const auto g = lower_attention_decode_gpu(kDecode);
  ASSERT_EQ(g.kernels.size(), 3u);
  EXPECT_DOUBLE_EQ(g.kernels[2].flops, 179'200);
  EXPECT_EQ(g.kernels[0].dtype, hw::DType::kFp32);
  for (const auto& k : g.kernels) {
    EXPECT_EQ(k.rows, 0u) << k.name;
    EXPECT_TRUE(k.streaming) << k.name;
  }
  EXPECT_THROW(lower_attention_decode_cpu({14, 2, 64, 2, 98, 100}, 1), std::invalid_argument);
  EXPECT_THROW(lower_attention_decode_gpu({14, 2, 64, 2, 98, 100}), std::invalid_argument);
}

}  // namespace
}  // namespace socsim::kernels
