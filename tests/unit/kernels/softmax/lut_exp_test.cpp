// The LUT exp table: every one of its 32,768 entries is within half an FP16 ulp of exp of its
// input, computed here in long double; the lookup follows the hardware's indexing.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <algorithm>

#include "kernels/softmax/lut_exp.h"

namespace socsim::kernels {
namespace {

// Spacing of FP16 values around a non-negative y: subnormals 2^-24, else 2^(e-10).
long double half_ulp_at(long double y) {
  if (y < std::ldexp(1.0L, -14)) return std::ldexp(1.0L, -24);
  int e = 0;
  std::frexp(y, &e);  // y = m 2^e, m in [0.5, 1): binade [2^(e-1), 2^e), ulp 2^(e-1-10)
  return std::ldexp(1.0L, e - 11);
}

TEST(LutExp, EveryEntryWithinHalfUlpOfExp) {
  const LutExpTable lut;
  ASSERT_EQ(lut.entries().size(), 32768u);
  EXPECT_EQ(LutExpTable::bytes(), 65536u);
  std::size_t checked = 0;
  for (std::uint32_t i = 0; i < LutExpTable::kEntries; ++i) {
    const half x = half_from_bits(static_cast<std::uint16_t>(i | 0x8000u));
    const half got = lut.entries()[i];
    if (std::isnan(to_float(x))) {
      EXPECT_TRUE(std::isnan(to_float(got))) << "index " << i;
      continue;
    }
    const long double want = std::exp(static_cast<long double>(to_float(x)));
    const long double err = std::fabs(static_cast<long double>(to_float(got)) - want);
    // Half an ulp of the binade the exact value lies in (at a binade edge, of the finer side).
    const long double ulp = std::min(half_ulp_at(want), half_ulp_at(static_cast<long double>(to_float(got))));
    ASSERT_LE(err, 0.5L * ulp * (1 + 1e-12L)) << "index " << i << " x=" << to_float(x);
    ++checked;
  }
  EXPECT_EQ(checked, 31745u);  // 32768 minus the 1023 NaN codes
}

TEST(LutExp, LookupClearsTheSignBit) {
  const LutExpTable lut;
  EXPECT_EQ(to_float(lut.lookup(to_half(0.0f))), 1.0f);
  EXPECT_EQ(to_float(lut.lookup(to_half(-0.0f))), 1.0f);
  EXPECT_EQ(to_float(lut.lookup(half_from_bits(0xfc00))), 0.0f);
  const half x = to_half(-2.5f);
  EXPECT_EQ(half_bits(lut.lookup(x)), half_bits(lut.entries()[half_bits(x) & 0x7fff]));
  EXPECT_NEAR(to_float(lut.lookup(x)), std::exp(-2.5f), 0.5 * std::ldexp(1.0, -14));
  // Below ln(2^-25) = -17.33 every entry has rounded to zero.
  EXPECT_EQ(to_float(lut.lookup(to_half(-17.5f))), 0.0f);
  EXPECT_GT(to_float(lut.lookup(to_half(-17.0f))), 0.0f);
}

}  // namespace
}  // namespace socsim::kernels
