#pragma once
// The most host time one command may be expected to take before it is refused with its size:
// work whose length is known before it starts (serve's density decoder, calibrate's ablation
// forwards) and would run for hours says so at once instead of running unannounced. About 3.7 h,
// timing mode's 2e8 call simulations of `serve` at 15,000 a second.
namespace socsim {

inline constexpr double kMaxCommandHostSeconds = 2e8 / 15000.0;

}  // namespace socsim
