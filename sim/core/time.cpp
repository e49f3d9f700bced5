#include "sim/core/time.h"

#include <cmath>
#include <stdexcept>

namespace socsim {

Tick seconds_to_ticks_ceil(double seconds) {
  if (!(seconds >= 0.0) || !std::isfinite(seconds)) {
    throw std::invalid_argument("seconds_to_ticks_ceil: negative or non-finite duration");
  }
  const double ps = seconds * 1e12;
  if (ps >= static_cast<double>(kTickMax)) {
    throw TimeOverflow("seconds_to_ticks_ceil: duration overflows 64-bit picoseconds");
  }
  // Guard against 1e-12 * 1e12 = 0.9999999 style errors: treat values within 1e-6 ps of an
  // integer as that integer before taking the ceiling.
  const RoundedUp r = round_nonnegative(ps);
  return r.distance < 1e-6 ? r.nearest : r.ceil;
}

}  // namespace socsim
