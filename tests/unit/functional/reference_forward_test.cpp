// The FP32 reference forward is the accuracy baseline, so its numbers must not depend on the host
// or the threads: its attention's AVX2 build and its baseline x86-64 build give the same bits, and
// so do 1, 2 and 3 threads (bands of (sequence, head) pairs, rows and elements).
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "functional_test_helpers.h"
#include "kernels/gemm/gemm_dims.h"
#include "sim/functional/forward_shape.h"
#include "sim/functional/reference_forward.h"
#include "sim/functional/synthetic_weights.h"

namespace socsim::functional {
namespace {

std::vector<float> reference_hidden(const model::ModelConfig& m, const ForwardShape& shape) {
  const SyntheticWeights w(m, 7);
  ReferenceForward f(m, shape, draw_tokens(shape, m.vocab, 7), w);
  for (std::uint32_t l = 0; l < m.layers; ++l) f.run_layer(w.layer(l));
  const kernels::Tensor h = f.final_hidden(w.final_norm());
  const auto d = h.data<float>();
  return {d.begin(), d.end()};
}

bool same_bits(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

TEST(ReferenceForward, SameBitsOnEveryBuildAndThreadCount) {
  // Sequences long enough for the element and row bands (each_index) to split, odd lengths.
  for (const auto& m : {test::tiny_model(), test::tiny_plain_model()}) {
    const ForwardShape shape{1100, 7, 2};
    const std::vector<float> want = reference_hidden(m, shape);
    ASSERT_EQ(want.size(), shape.positions() * m.hidden);
    {
      const ScopedBaselineReferenceAttention baseline;
      EXPECT_TRUE(same_bits(want, reference_hidden(m, shape))) << m.model_type << ": the baseline build of the attention";
    }
    for (const unsigned threads : {1u, 2u, 3u}) {
      const kernels::ScopedGemmThreads pin(threads);
      EXPECT_TRUE(same_bits(want, reference_hidden(m, shape))) << m.model_type << " on " << threads << " threads";
    }
  }
}

// The comparison above cannot pass by computing nothing: another seed's tokens give other numbers.
TEST(ReferenceForward, DifferentTokensGiveDifferentNumbers) {
  const auto m = test::tiny_model();
  const SyntheticWeights w(m, 7);
  const ForwardShape shape{40, 3, 1};
  const auto run = [&](std::uint64_t seed) {
    ReferenceForward f(m, shape, draw_tokens(shape, m.vocab, seed), w);
    for (std::uint32_t l = 0; l < m.layers; ++l) f.run_layer(w.layer(l));
    const kernels::Tensor h = f.final_hidden(w.final_norm());
    const auto d = h.data<float>();
    return std::vector<float>(d.begin(), d.end());
  };
  EXPECT_FALSE(same_bits(run(1), run(2)));
}

}  // namespace
}  // namespace socsim::functional
