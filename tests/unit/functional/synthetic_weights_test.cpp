#include "sim/functional/synthetic_weights.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "functional_test_helpers.h"

namespace socsim::functional {
namespace {

bool same_bits(const kernels::Tensor& a, const kernels::Tensor& b) {
  return a.bytes() == b.bytes() && std::memcmp(a.raw().data(), b.raw().data(), a.bytes()) == 0;
}

TEST(FunctionalWeights, IndependentOfThreadCount) {
  auto m = test::tiny_model();
  m.hidden = 512;  // large enough for generation to split across threads
  m.intermediate = 1024;
  const SyntheticWeights one(m, 3, {4, 30.0, 1}), many(m, 3, {4, 30.0, 3});
  const auto a = one.layer(1), b = many.layer(1);
  EXPECT_TRUE(same_bits(a.q, b.q));
  EXPECT_TRUE(same_bits(a.down, b.down));
  EXPECT_EQ(a.k_bias, b.k_bias);
  EXPECT_TRUE(same_bits(one.lm_head_rows(10, 50), many.lm_head_rows(10, 50)));
}

// Generation runs in vector lanes on hosts that have them (synthetic_weights.cpp's fill_range):
// an element's value must not depend on where a request starts, i.e. on which lane or on the
// loop's scalar tail it falls.
TEST(FunctionalWeights, AValueDoesNotDependOnWhereTheRequestStarts) {
  auto m = test::tiny_model();
  m.hidden = 37;  // rows of 37 values: every offset modulo a vector's lanes
  const SyntheticWeights w(m, 5, {4, 30.0, 2});
  const auto all = w.lm_head_rows(0, 40);
  const auto a = all.data<float>();
  for (std::uint64_t first : {1u, 3u, 7u, 16u}) {
    const auto part = w.lm_head_rows(first, 11);
    const auto p = part.data<float>();
    for (std::size_t i = 0; i < p.size(); ++i) {
      ASSERT_EQ(p[i], a[first * m.hidden + i]) << "rows from " << first << ", element " << i;
    }
  }
  std::vector<float> row(m.hidden);
  for (std::int32_t id : {0, 13, 39}) {
    w.embedding_rows(std::span<const std::int32_t>(&id, 1), row.data());
    for (std::size_t i = 0; i < row.size(); ++i) ASSERT_EQ(row[i], a[static_cast<std::size_t>(id) * m.hidden + i]) << id;
  }
}

TEST(FunctionalWeights, SeedsAndTensorsDiffer) {
  const auto m = test::tiny_model();
  const SyntheticWeights a(m, 1), b(m, 2);
  EXPECT_FALSE(same_bits(a.layer(0).q, b.layer(0).q));
  EXPECT_FALSE(same_bits(a.layer(0).q, a.layer(1).q));
  EXPECT_NE(std::memcmp(a.layer(0).k.raw().data(), a.layer(0).v.raw().data(), a.layer(0).k.bytes()), 0);
}

TEST(FunctionalWeights, TiedHeadIsTheEmbedding) {
  const auto m = test::tiny_model();
  const SyntheticWeights w(m, 4);
  const std::vector<std::int32_t> ids{7, 0, 99};
  std::vector<float> rows(ids.size() * m.hidden);
  w.embedding_rows(ids, rows.data());
  const auto head = w.lm_head_rows(0, m.vocab);
  for (std::size_t i = 0; i < ids.size(); ++i) {
    EXPECT_EQ(std::memcmp(rows.data() + i * m.hidden, head.data<float>().data() + ids[i] * m.hidden, m.hidden * sizeof(float)), 0);
  }
  auto untied = m;
  untied.tied_embeddings = false;
  const SyntheticWeights u(untied, 4);
  EXPECT_FALSE(same_bits(u.lm_head_rows(0, 3), w.lm_head_rows(0, 3)));
}

// std 1/sqrt(fan_in); after a norm, over the RMS of its gains; residual projections over
// sqrt(2 layers) (synthetic_weights.h).
TEST(FunctionalWeights, StdFollowsFanInGainAndDepth) {
  auto m = test::tiny_model();
  m.hidden = 256;
  m.intermediate = 1024;
  m.layers = 8;
  const auto stats = [](const kernels::Tensor& t) {
    double s = 0, s2 = 0;
    for (float v : t.data<float>()) s += v, s2 += static_cast<double>(v) * v;
    const double n = static_cast<double>(t.numel());
    return std::pair{s / n, std::sqrt(s2 / n - (s / n) * (s / n))};
  };
  const auto l = SyntheticWeights(m, 11, {0, 30.0}).layer(0);
  const auto [mean_up, std_up] = stats(l.up);        // fan-in 256
  const auto [mean_down, std_down] = stats(l.down);  // fan-in 1024, residual: / sqrt(16)
  EXPECT_NEAR(mean_up, 0.0, 0.002);
  EXPECT_NEAR(std_up, 1.0 / 16.0, 0.01 / 16.0);
  EXPECT_NEAR(mean_down, 0.0, 0.001);
  EXPECT_NEAR(std_down, 1.0 / 32.0 / 4.0, 0.01 / 128.0);
  // 4 channels at 30x: gain RMS sqrt((252 + 4 * 900) / 256).
  const auto with = SyntheticWeights(m, 11, {4, 30.0}).layer(0);
  const double g = std::sqrt((252.0 + 3600.0) / 256.0);
  EXPECT_NEAR(stats(with.q).second, 1.0 / 16.0 / g, 0.01 / 16.0 / g);
  EXPECT_NEAR(stats(with.o).second, 1.0 / std::sqrt(static_cast<double>(m.heads * m.head_dim)) / 4.0, 0.002);
}

TEST(FunctionalWeights, OutlierChannelsOnEveryNorm) {
  const auto m = test::tiny_model();
  const SyntheticWeights w(m, 5, {3, 25.0});
  ASSERT_EQ(w.outlier_channels().size(), 3u);
  for (const auto& n : {w.layer(0).input_norm, w.layer(1).post_norm, w.final_norm()}) {
    int big = 0;
    for (std::size_t c = 0; c < n.weight.size(); ++c) {
      const bool outlier = std::find(w.outlier_channels().begin(), w.outlier_channels().end(), c) != w.outlier_channels().end();
      EXPECT_EQ(n.weight[c], outlier ? 25.0f : 1.0f);
      big += outlier;
    }
    EXPECT_EQ(big, 3);
  }
  EXPECT_EQ(SyntheticWeights(m, 5, {3, 25.0}).outlier_channels(), w.outlier_channels());
  EXPECT_TRUE(SyntheticWeights(m, 5, {0, 25.0}).outlier_channels().empty());
  EXPECT_THROW(SyntheticWeights(m, 5, {65, 25.0}), std::invalid_argument);
  EXPECT_THROW(SyntheticWeights(m, 5, {1, 0.0}), std::invalid_argument);
}

}  // namespace
}  // namespace socsim::functional
