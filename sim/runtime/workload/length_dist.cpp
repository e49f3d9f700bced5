// LengthDist bounds: the range every draw of a length distribution lies in.
#include <algorithm>

#include "sim/runtime/workload/workload.h"

namespace socsim::runtime {

namespace {

struct Bounds {
  std::uint64_t min, max;
};

Bounds bounds_of(const FixedLength& f) { return {f.value, f.value}; }
Bounds bounds_of(const UniformLength& u) { return {u.min, u.max}; }
Bounds bounds_of(const NormalLength& n) { return {n.min, n.max}; }
Bounds bounds_of(const ChoiceLength& c) {
  const auto [lo, hi] = std::minmax_element(c.values.begin(), c.values.end());
  return {*lo, *hi};
}

}  // namespace

std::uint64_t LengthDist::min() const {
  return std::visit([](const auto& f) { return bounds_of(f).min; }, form);
}

std::uint64_t LengthDist::max() const {
  return std::visit([](const auto& f) { return bounds_of(f).max; }, form);
}

}  // namespace socsim::runtime
