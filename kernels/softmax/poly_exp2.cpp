#include "kernels/softmax/poly_exp2.h"

#include <cmath>

namespace socsim::kernels {

namespace {

// One FP16 operation: the float result of two FP16 operands is exact or has enough extra bits
// that rounding it to FP16 gives the correctly rounded FP16 result (float carries 2*11+2 bits).
half hmul(half a, half b) { return to_half(to_float(a) * to_float(b)); }
half hadd(half a, half b) { return to_half(to_float(a) + to_float(b)); }

constexpr std::uint16_t kC0 = 0x3c00, kC1 = 0x3990, kC2 = 0x3342, kC3 = 0x2cfd;
constexpr std::uint16_t kLog2eBits = 0x3dc5;  // 1.4423828125, log2(e) rounded to FP16

}  // namespace

half exp_poly_fp16(half x) {
  if (x != x) return x;
  const half t = hmul(x, half_from_bits(kLog2eBits));
  // 2^t below 2^-25 rounds to zero in FP16 (half the smallest subnormal); also catches -inf.
  if (to_float(t) < -25.0f) return to_half(0.0f);
  const float n = std::floor(to_float(t));
  const half f = to_half(to_float(t) - n);  // exact unless t is in (-0.5, 0)
  half p = half_from_bits(kC3);
  p = hadd(hmul(p, f), half_from_bits(kC2));
  p = hadd(hmul(p, f), half_from_bits(kC1));
  p = hadd(hmul(p, f), half_from_bits(kC0));
  // Adding n to the exponent field is exact for normal results; below the normal range the
  // result is rounded to a subnormal, which ldexp in float followed by one rounding reproduces.
  return to_half(std::ldexp(to_float(p), static_cast<int>(n)));
}

double exp_poly_error_bound(double x) {
  const double y = std::exp(x);
  const double rel = (1 + kPolyExp2RelError) * std::exp(kPolyExpInputRelError * std::fabs(x)) *
                         (1 + kPolyExpSplitRelError) - 1;
  return y * rel + std::ldexp(1.0, -25);
}

}  // namespace socsim::kernels
