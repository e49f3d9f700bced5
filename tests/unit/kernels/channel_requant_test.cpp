// Channel-wise 4/2-bit requantization of INT8 KV chunks against a plain reference, hand-checked
// packing, error bounds, and the lower face's counts.
#include "kernels/quant/channel_requant.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>

namespace socsim::kernels {
namespace {

TEST(ChannelRequant, HandCaseFourBitsPacking) {
  // 2 tokens x 2 channels. Channel 0: {0, 15} -> lo 0, scale 1, codes 0, 15. Channel 1: {-30, 0}
  // -> lo -30, scale 2, codes 0, 15. Row t packs channel 0 in bits 0-3 and channel 1 in bits 4-7.
  const std::vector<std::int8_t> x = {0, -30, 15, 0};
  const auto q = requantize_channelwise(x, 2, 2, 4);
  ASSERT_EQ(q.row_bytes(), 1);
  ASSERT_EQ(q.packed.size(), 2u);
  EXPECT_EQ(q.packed[0], 0x00);
  EXPECT_EQ(q.packed[1], 0xFF);
  EXPECT_FLOAT_EQ(q.scale[1], 2.0f);
  EXPECT_EQ(dequantize_channelwise(q), x);
}

TEST(ChannelRequant, MatchesAPlainReferenceAndStaysWithinHalfAStep) {
  const std::int64_t tokens = 16, channels = 37;  // a row that does not fill its last byte
  std::vector<std::int8_t> x(static_cast<std::size_t>(tokens * channels));
  unsigned s = 12345;
  for (auto& v : x) {
    s = s * 1103515245u + 12345u;
    v = static_cast<std::int8_t>(static_cast<int>((s >> 16) % 256) - 128);
  }
  for (int bits : {4, 2}) {
    const auto q = requantize_channelwise(x, tokens, channels, bits);
    EXPECT_EQ(static_cast<std::int64_t>(q.packed.size()), tokens * ((channels * bits + 7) / 8));
    const auto y = dequantize_channelwise(q);
    const int levels = (1 << bits) - 1;
    for (std::int64_t c = 0; c < channels; ++c) {
      // Reference: per-channel min/max, the same grid, nearest code, back to an integer.
      int lo = 127, hi = -128;
      for (std::int64_t t = 0; t < tokens; ++t) {
        lo = std::min<int>(lo, x[static_cast<std::size_t>(t * channels + c)]);
        hi = std::max<int>(hi, x[static_cast<std::size_t>(t * channels + c)]);
      }
      const double scale = hi > lo ? static_cast<double>(hi - lo) / levels : 1.0;
      for (std::int64_t t = 0; t < tokens; ++t) {
        const int v = x[static_cast<std::size_t>(t * channels + c)];
        const int got = y[static_cast<std::size_t>(t * channels + c)];
        const long code = std::lround((v - lo) / scale);
        EXPECT_NEAR(got, lo + code * scale, 0.5 + 1e-6) << "bits " << bits;
        EXPECT_LE(std::abs(got - v), scale / 2 + 0.5 + 1e-6) << "bits " << bits;
      }
    }
  }
}

TEST(ChannelRequant, RejectsOtherBitWidthsAndShapes) {
  EXPECT_THROW(requantize_channelwise({1, 2}, 1, 2, 3), std::invalid_argument);
  EXPECT_THROW(requantize_channelwise({1, 2, 3}, 1, 2, 4), std::invalid_argument);
}

TEST(ChannelRequant, LowerCounts) {
  // 1000 elements to 2 bits: 7 ops each; bytes read 2 x 1000, written 250.
  const auto w = lower_requantize_cpu(1000, 2, 1);
  ASSERT_EQ(w.tasks.size(), 1u);
  EXPECT_DOUBLE_EQ(w.tasks[0].ops, 7000.0);
  EXPECT_EQ(w.tasks[0].dram_bytes, 2250u);
  const auto d = lower_dequantize_channelwise_cpu(1000, 4, 2);
  EXPECT_DOUBLE_EQ(d.tasks[0].ops, 3000.0);
  EXPECT_EQ(d.tasks[0].dram_bytes, 1500u);
  EXPECT_EQ(d.threads, 2u);
}

}  // namespace
}  // namespace socsim::kernels
