#pragma once
// Simulated time. One integer timebase for the whole simulator (as SST, ChampSim and ONNXim do):
// never a double for time, so event order and reports are exact and reproducible.
#include <cstdint>
#include <limits>
#include <stdexcept>

namespace socsim {

using Tick = std::uint64_t;  // picoseconds

inline constexpr Tick kPicosecond = 1;
inline constexpr Tick kNanosecond = 1'000;
inline constexpr Tick kMicrosecond = 1'000'000;
inline constexpr Tick kMillisecond = 1'000'000'000;
inline constexpr Tick kSecond = 1'000'000'000'000;
inline constexpr Tick kTickMax = std::numeric_limits<Tick>::max();

// A simulated time or duration past 64-bit picoseconds (about 213 days). Always the inputs' doing
// (a parameter or a request far outside what a phone does), so the command line reports it as
// bad input (exit 2); any other overflow is a bug (exit 1).
class TimeOverflow : public std::overflow_error {
 public:
  using std::overflow_error::overflow_error;
};

// Conversions for reports only; simulation logic stays in Ticks.
inline constexpr double to_seconds(Tick t) { return static_cast<double>(t) / 1e12; }
inline constexpr double to_ms(Tick t) { return static_cast<double>(t) / 1e9; }
inline constexpr double to_us(Tick t) { return static_cast<double>(t) / 1e6; }

// Rounds up, so that a non-zero amount of work never takes zero time.
Tick seconds_to_ticks_ceil(double seconds);

// std::round and std::ceil of a finite x in [0, 2^64), and |x - round(x)|, all exact, without a
// libm call each (the baseline x86-64 build has no rounding instruction; a DRAM recomputation
// converts every active flow's duration). The cast truncates, x - whole is exact (Sterbenz: whole
// <= x < 2 whole, or whole = 0; x at or past 2^53 is whole), and so is 1 - frac for frac >= 1/2.
struct RoundedUp {
  std::uint64_t nearest, ceil;
  double distance;  // |x - nearest|
};
inline RoundedUp round_nonnegative(double x) {
  const auto whole = static_cast<std::uint64_t>(x);
  const double frac = x - static_cast<double>(whole);
  const bool up = frac >= 0.5;  // halves away from zero, as std::round
  return {up ? whole + 1 : whole, frac > 0 ? whole + 1 : whole, up ? 1.0 - frac : frac};
}

}  // namespace socsim
