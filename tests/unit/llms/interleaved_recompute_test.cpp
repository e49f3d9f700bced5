// Recomputing interleaved missing chunks from their text, layer by layer at their global
// positions, reproduces a full prefill's K/V; at local positions it does not.
#include "sim/systems/llms/interleaved_recompute.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

namespace socsim::systems::llms {
namespace {

double max_abs_diff(const std::vector<LayerKv>& a, const std::vector<LayerKv>& b) {
  double m = 0;
  for (std::size_t l = 0; l < a.size(); ++l) {
    for (auto [x, y] : {std::pair{&a[l].k, &b[l].k}, std::pair{&a[l].v, &b[l].v}}) {
      auto p = x->data<float>();
      auto q = y->data<float>();
      for (std::size_t i = 0; i < p.size(); ++i) m = std::max(m, static_cast<double>(std::abs(p[i] - q[i])));
    }
  }
  return m;
}

// Zeroes the K/V rows of the missing positions (as if swapped out and dropped).
void punch_holes(std::vector<LayerKv>& kv, const std::vector<std::int64_t>& missing) {
  for (auto& c : kv) {
    const std::int64_t heads = c.k.dim(0), len = c.k.dim(1), d = c.k.dim(2);
    for (auto* t : {&c.k, &c.v}) {
      for (std::int64_t h = 0; h < heads; ++h) {
        for (auto p : missing) std::fill_n(t->data<float>().begin() + (h * len + p) * d, d, 0.0f);
      }
    }
  }
}

TEST(InterleavedRecompute, Figure7MissingTokensAtGlobalPositions) {
  // "a b c d e f" with "c" and "e" missing (positions 2 and 4).
  const auto m = TinyDecoder::synthetic(32, 32, 4, 64, 3, 7);
  const std::vector<int> tokens = {3, 14, 15, 9, 26, 5};
  const auto full = prefill_kv(m, tokens);
  auto kv = full;
  punch_holes(kv, {2, 4});
  recompute_missing(m, tokens, {2, 4}, kv);
  EXPECT_LT(max_abs_diff(kv, full), 1e-5);
}

TEST(InterleavedRecompute, InterleavedChunksMatchAFullRecompute) {
  // 48 tokens in chunks of 4; chunks 1, 5, 6 and 11 missing (the last chunk included).
  const auto m = TinyDecoder::synthetic(64, 32, 4, 64, 2, 11);
  std::vector<int> tokens;
  for (int i = 0; i < 48; ++i) tokens.push_back((i * 37 + 5) % 64);
  std::vector<std::int64_t> missing;
  for (int c : {1, 5, 6, 11}) {
    for (int t = 0; t < 4; ++t) missing.push_back(c * 4 + t);
  }
  const auto full = prefill_kv(m, tokens);
  auto kv = full;
  punch_holes(kv, missing);
  recompute_missing(m, tokens, missing, kv);
  EXPECT_LT(max_abs_diff(kv, full), 1e-5);

  auto wrong = full;
  punch_holes(wrong, missing);
  recompute_missing(m, tokens, missing, wrong, /*global_positions=*/false);
  EXPECT_GT(max_abs_diff(wrong, full), 1e-2);  // RoPE at local positions gives other keys
}

}  // namespace
}  // namespace socsim::systems::llms
