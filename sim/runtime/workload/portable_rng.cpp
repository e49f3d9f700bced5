// PortableRng: integer, unit-interval and normal mappings of std::mt19937_64's raw output.
#include "sim/runtime/workload/portable_rng.h"

#include <cmath>
#include <numbers>
#include <stdexcept>

namespace socsim::runtime {

std::uint64_t PortableRng::below(std::uint64_t n) {
  if (n == 0) throw std::logic_error("PortableRng::below(0): empty range");
  // Reject the 2^64 mod n smallest outputs so that every residue is hit equally often
  // (the arc4random_uniform method); (0 - n) % n is 2^64 mod n in unsigned arithmetic.
  const std::uint64_t threshold = (std::uint64_t{0} - n) % n;
  std::uint64_t r = engine_();
  while (r < threshold) r = engine_();
  return r % n;
}

double PortableRng::unit() {
  // The top 53 bits fill a double's mantissa exactly, so every value is equally likely.
  return static_cast<double>(engine_() >> 11) * 0x1.0p-53;
}

double PortableRng::standard_normal() {
  // Box-Muller, cosine branch only: one normal per two uniforms keeps the generator stateless
  // beyond the engine. u1 is in (0, 1] so the logarithm is finite.
  const double u1 = 1.0 - unit();
  const double u2 = unit();
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * std::numbers::pi * u2);
}

}  // namespace socsim::runtime
