// Full causal FP32 attention against the double reference: GQA ratios 7 and 6, query chunks at
// an offset, kv length 1, phi-2's head dim 80, m not a multiple of 32.
#include <gtest/gtest.h>

#include "kernels/attention/full_attention.h"
#include "tests/unit/kernels/attention/attention_test_util.h"

namespace socsim::kernels {
namespace {

struct Case {
  std::uint64_t heads, kv_heads, m, p0, d;
};

void check(const Case& c, std::uint64_t extra_keys = 0) {
  const auto a = test::make_attn(c.heads, c.kv_heads, c.m, c.p0, c.d, static_cast<unsigned>(c.m * 31 + c.d), 1.0f, extra_keys);
  const Tensor o = attention_f32(a.q, a.k, a.v, c.p0);
  const auto want = test::ref_attention(a, 1.0 / std::sqrt(double(c.d)));
  // FP32: scores within ~d ulp, softmax within ~n ulp; outputs are convex combinations of v, so
  // an absolute 1e-5 of max|v| (about 80 FP32 ulps) bounds it with room.
  const double tol = 1e-5 * test::max_abs(a.v);
  for (std::size_t i = 0; i < want.size(); ++i) ASSERT_NEAR(o.data<float>()[i], want[i], tol) << "element " << i;
}

TEST(AttentionFull, PrefillFromZero) { check({2, 2, 37, 0, 64}); }
TEST(AttentionFull, GqaRatio7ChunkAtOffset) { check({14, 2, 5, 60, 64}); }
TEST(AttentionFull, GqaRatio6Decode) { check({12, 2, 1, 99, 128}); }
TEST(AttentionFull, KvLengthOnePhi2HeadDim) { check({4, 4, 1, 0, 80}); }
TEST(AttentionFull, FutureKeysAreIgnored) { check({2, 1, 33, 7, 80}, 10); }

TEST(AttentionFull, SingleKeyReturnsItsValue) {
  const auto a = test::make_attn(3, 1, 1, 0, 16, 5);
  const Tensor o = attention_f32(a.q, a.k, a.v, 0);
  for (std::uint64_t h = 0; h < 3; ++h) {
    for (std::uint64_t c = 0; c < 16; ++c) EXPECT_EQ(o.data<float>()[h * 16 + c], a.v.data<float>()[c]);
  }
}

TEST(AttentionFull, RejectsBadShapes) {
  const auto a = test::make_attn(4, 3 - 1, 5, 0, 8, 1);  // 4 heads over 2 kv heads is fine
  EXPECT_NO_THROW(attention_f32(a.q, a.k, a.v, 0));
  EXPECT_THROW(attention_f32(a.q, a.k, a.v, 1), std::invalid_argument);  // needs 6 keys, has 5
  const auto b = test::make_attn(4, 3, 2, 0, 8, 1);
  EXPECT_THROW(attention_f32(b.q, b.k, b.v, 0), std::invalid_argument);  // 4 % 3 != 0
}

}  // namespace
}  // namespace socsim::kernels
