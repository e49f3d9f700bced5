#pragma once
// Max-min fair shares of one DRAM stream among groups of cores, each core under a cap of its own:
// how DramModel divides a port among the flows beneath it when they stream together. Used where
// work is divided before it runs (CpuComplex::run_on_fastest's dynamic chunks), so each part gets
// the work its cores can finish in the same time.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <utility>

#include <boost/container/small_vector.hpp>

namespace socsim::hw {

// One core's stream in each group. `get(group)` gives (cores, what one core can use in bytes/s:
// its cap, or less when its arithmetic keeps it from moving more; <= 0 for no limit); `total`
// (<= 0 for none) is what they share. Water-filling: the least demanding cores take what they can
// use while it is below an even share of what is left, the others an even share.
template <class Groups, class Get>
boost::container::small_vector<double, 4> fair_streams(const Groups& groups, double total, Get get) {
  constexpr double kNone = std::numeric_limits<double>::infinity();
  const std::size_t n = groups.size();
  boost::container::small_vector<double, 4> out(n, 0.0);
  boost::container::small_vector<std::size_t, 4> by_cap(n);
  double cores_left = 0;
  for (std::size_t i = 0; i < n; ++i) {
    by_cap[i] = i;
    cores_left += static_cast<double>(get(groups[i]).first);
  }
  const auto cap = [&](std::size_t i) {
    const double c = get(groups[i]).second;
    return c > 0 ? c : kNone;
  };
  // A few groups, once per CPU task: an insertion sort (stable, and std::stable_sort allocates).
  for (std::size_t i = 1; i < n; ++i) {
    for (std::size_t k = i; k > 0 && cap(by_cap[k]) < cap(by_cap[k - 1]); --k) std::swap(by_cap[k], by_cap[k - 1]);
  }
  double left = total > 0 ? total : kNone;
  for (const std::size_t i : by_cap) {
    const double cores = static_cast<double>(get(groups[i]).first);
    if (cores <= 0) continue;
    const double each = std::min(cap(i), left / cores_left);
    out[i] = each;
    if (std::isfinite(each)) left = std::max(0.0, left - each * cores);
    cores_left -= cores;
  }
  return out;
}

}  // namespace socsim::hw
