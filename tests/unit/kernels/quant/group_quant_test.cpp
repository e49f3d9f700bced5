#include "kernels/quant/group_quant.h"

#include <gtest/gtest.h>

#include <cmath>

#include "tests/unit/kernels/gemm/kernel_test_util.h"

namespace socsim::kernels {
namespace {

TEST(QuantPerGroup, ScalePerGroupPerColumn) {
  // k = 5, group 2: groups {0,1}, {2,3}, {4}. Column 0 max |.| per group: 2.54, 1.27, 0 (-> scale 1).
  Tensor w = Tensor::matrix(5, 2, ElemType::kF32);
  const float v[] = {2.54f, 1, -1, 0.5f, 0.635f, -1.27f, 1.27f, 0, 0, 4};
  std::copy(std::begin(v), std::end(v), w.data<float>().begin());
  const GroupQuantizedI8 q = quantize_per_group(w, 2);
  ASSERT_EQ(q.groups(), 3);
  const auto s = q.scales.data<float>();
  EXPECT_FLOAT_EQ(s[0], 2.54f / 127);  // group 0, column 0
  EXPECT_FLOAT_EQ(s[1], 1.0f / 127);   // group 0, column 1
  EXPECT_FLOAT_EQ(s[2], 1.27f / 127);
  EXPECT_FLOAT_EQ(s[3], 1.27f / 127);
  EXPECT_EQ(s[4], 1.0f);               // all-zero group
  EXPECT_FLOAT_EQ(s[5], 4.0f / 127);
  const auto qv = q.q.data<std::int8_t>();
  EXPECT_EQ(qv[0], 127);
  EXPECT_EQ(qv[2], -50);               // -1 / 0.02
  EXPECT_EQ(qv[9], 127);
}

TEST(QuantPerGroup, DequantizeMatchesAPlainReference) {
  for (std::int64_t group : {1, 7, 32, 128}) {
    const Tensor w = test::random_f32(130, 9, 53, -2, 2);
    const GroupQuantizedI8 q = quantize_per_group(w, group);
    EXPECT_EQ(q.groups(), (130 + group - 1) / group);
    const Tensor d = dequantize_per_group(q);
    for (std::int64_t k = 0; k < 130; ++k)
      for (std::int64_t j = 0; j < 9; ++j) {
        float amax = 0;
        for (std::int64_t kk = k / group * group; kk < std::min<std::int64_t>(130, (k / group + 1) * group); ++kk)
          amax = std::max(amax, std::fabs(w.data<float>()[kk * 9 + j]));
        const float s = amax / 127;
        const float ref = std::clamp(std::nearbyint(w.data<float>()[k * 9 + j] / s), -127.0f, 127.0f) * s;
        ASSERT_EQ(d.data<float>()[k * 9 + j], ref);
      }
  }
  EXPECT_THROW(quantize_per_group(test::random_f32(4, 4, 1), 0), std::invalid_argument);
}

}  // namespace
}  // namespace socsim::kernels
