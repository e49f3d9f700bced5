// Drawing lengths: fixed, uniform, truncated rounded normal, and choices.
#include "sim/runtime/workload/length_draw.h"

#include <algorithm>
#include <cmath>

namespace socsim::runtime {

namespace {

// Truncation redraws until the rounded value is inside [min, max]. The loader refuses a normal
// that puts under 1% of its draws inside (length_dist_reader.cpp), so a draw reaches this cap with
// a chance under 0.99^1000 = 4e-5; the last draw is then clamped rather than looping for ever.
constexpr int kMaxNormalAttempts = 1000;

std::uint64_t draw(const FixedLength& f, PortableRng&) { return f.value; }

std::uint64_t draw(const UniformLength& u, PortableRng& rng) {
  return u.min + rng.below(u.max - u.min + 1);
}

std::uint64_t draw(const NormalLength& n, PortableRng& rng) {
  const double lo = static_cast<double>(n.min), hi = static_cast<double>(n.max);
  double rounded = n.mean;
  for (int attempt = 0; attempt < kMaxNormalAttempts; ++attempt) {
    // floor(x + 0.5): round half up, the same on every platform (no rounding-mode dependence).
    rounded = std::floor(n.mean + n.std_dev * rng.standard_normal() + 0.5);
    if (rounded >= lo && rounded <= hi) return static_cast<std::uint64_t>(rounded);
  }
  return static_cast<std::uint64_t>(std::clamp(rounded, lo, hi));
}

std::uint64_t draw(const ChoiceLength& c, PortableRng& rng) {
  return c.values[static_cast<std::size_t>(rng.below(c.values.size()))];
}

}  // namespace

std::uint64_t draw_length(const LengthDist& dist, PortableRng& rng) {
  return std::visit([&rng](const auto& form) { return draw(form, rng); }, dist.form);
}

}  // namespace socsim::runtime
