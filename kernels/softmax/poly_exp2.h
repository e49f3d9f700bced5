#pragma once
// exp in FP16 the conventional HVX way (TTS paper, section 5.2.1): t = x * log2(e), split t into
// n = floor(t) and f = t - n in [0, 1), evaluate 2^f with a polynomial, and add n to the exponent
// field. Every step is an FP16 operation rounded to FP16, as the vector unit does it.
//
// Polynomial (Horner, FP16 coefficients, found by a minimax fit refined over all FP16 f in [0,1)
// evaluated in FP16 arithmetic):
//   p(f) = 1 + f*(0.6953125 + f*(0.2268066406 + f*0.07794189453))
//          codes 0x3c00, 0x3990, 0x3342, 0x2cfd
// Max relative error of p over all FP16 f in [0,1), FP16 evaluation included: 6.24e-4 (1.28 ulp
// units of 2^-11).
//
// Error bound of exp_poly_fp16(x) against exp(x) for FP16 x <= 0 (checked over all 32,768 such x):
//   |y - e^x| <= e^x * ((1 + 6.24e-4) * e^(7.05e-4 |x|) * (1 + 1.7e-4) - 1) + 2^-25
// Terms: log2(e) rounded to FP16 (relative 2.2e-4) and t rounded to FP16 (2^-11) give
// |t' - t| <= 1.0165e-3 |x|, i.e. a relative 7.05e-4 |x| after 2^t; for t in (-0.5, 0), f = t - n
// loses bits below 2^-11 (relative 2^-12 ln 2 = 1.7e-4); 2^-25 covers subnormal rounding. So the
// error grows with |x| (about 0.7% at x = -8): the reason the LUT is the more accurate FP16 exp.
#include "kernels/tensor/half.h"

namespace socsim::kernels {

inline constexpr double kPolyExp2RelError = 6.24e-4;     // p(f) over f in [0,1), FP16 evaluation
inline constexpr double kPolyExpInputRelError = 7.05e-4;  // per unit |x|, from rounding t
inline constexpr double kPolyExpSplitRelError = 1.7e-4;   // inexact f for t in (-0.5, 0)

// exp(x) for FP16 x <= 0 (NaN propagates, -inf gives 0).
half exp_poly_fp16(half x);

// The stated bound on |exp_poly_fp16(x) - e^x| for x <= 0.
double exp_poly_error_bound(double x);

}  // namespace socsim::kernels
