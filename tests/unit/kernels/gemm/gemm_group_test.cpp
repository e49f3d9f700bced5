#include "kernels/gemm/gemm_group.h"

#include <gtest/gtest.h>

#include <cmath>

#include "kernel_test_util.h"
#include "kernels/quant/int8_quant.h"

namespace socsim::kernels {
namespace {

struct Case {
  std::int64_t m, k, n, group;
};

// The plain reference: each group's sub-GEMM exactly in 64-bit integers, scaled and summed in
// FP64; |terms| summed for the stated bound.
void expect_matches(const Tensor& a, float sa, const GroupQuantizedI8& w, const Tensor& c) {
  const std::int64_t m = a.dim(0), k = a.dim(1), n = w.n();
  for (std::int64_t i = 0; i < m; ++i)
    for (std::int64_t j = 0; j < n; ++j) {
      double s = 0, abs_terms = 0;
      for (std::int64_t g = 0; g < w.groups(); ++g) {
        std::int64_t p = 0;
        for (std::int64_t kk = g * w.group; kk < std::min(k, (g + 1) * w.group); ++kk)
          p += std::int64_t{a.data<std::int8_t>()[i * k + kk]} * w.q.data<std::int8_t>()[kk * n + j];
        const double term = static_cast<double>(p) * (static_cast<double>(sa) * w.scales.data<float>()[g * n + j]);
        s += term;
        abs_terms += std::fabs(term);
      }
      const double bound = static_cast<double>(w.groups()) * std::ldexp(1.0, -23) * abs_terms;
      ASSERT_LE(std::fabs(c.data<float>()[i * n + j] - s), bound) << i << "," << j;
    }
}

TEST(GemmPerGroup, SubGemmsPerGroupReducedInFloat) {
  for (const Case cs : {Case{1, 1, 1, 1}, Case{33, 65, 17, 32}, Case{100, 300, 70, 128}, Case{6, 257, 20, 7},
                        Case{4, 2048, 9, 1024}}) {
    SCOPED_TRACE(testing::Message() << cs.m << "x" << cs.k << "x" << cs.n << " group " << cs.group);
    const Tensor a = test::random_i8(cs.m, cs.k, 31);
    const GroupQuantizedI8 w = quantize_per_group(test::random_f32(cs.k, cs.n, 32), cs.group);
    const Tensor c = gemm_i8_per_group(a, 0.03f, w, 2);
    expect_matches(a, 0.03f, w, c);
  }
}

TEST(GemmPerGroup, ApproximatesTheFloatGemm) {
  const Tensor x = test::random_f32(5, 256, 33), wf = test::random_f32(256, 12, 34);
  const auto qa = quantize_per_tensor(x);
  const GroupQuantizedI8 w = quantize_per_group(wf, 64);
  const Tensor c = gemm_i8_per_group(qa.q, qa.scale, w);
  const auto ref = test::ref_gemm_f64<float>(x, wf);
  double max_scale = 0;
  for (float s : w.scales.data<float>()) max_scale = std::max<double>(max_scale, s);
  for (std::size_t i = 0; i < ref.c.size(); ++i) {
    EXPECT_NEAR(c.data<float>()[i], ref.c[i], 256 * (qa.scale / 2 + max_scale / 2 + qa.scale * max_scale) + 1e-5);
  }
}

TEST(GemmPerGroup, RejectsGroupsTooDeepForExactSums) {
  const GroupQuantizedI8 w = quantize_per_group(test::random_f32(2048, 4, 35), 2048);
  EXPECT_THROW(gemm_i8_per_group(test::random_i8(2, 2048, 36), 1.0f, w), std::invalid_argument);
}

}  // namespace
}  // namespace socsim::kernels
