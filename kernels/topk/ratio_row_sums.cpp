#include "kernels/topk/ratio_row_sums.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <stdexcept>
#include <string>
#include <utility>

namespace socsim::kernels {

std::optional<std::uint64_t> ratio_as_ppm(double ratio) {
  if (!(ratio >= 0)) return std::nullopt;  // NaN or negative: the row loop's check reports it
  if (ratio >= 1) return kPartsPerMillion;
  const double scaled = std::nearbyint(ratio * static_cast<double>(kPartsPerMillion));
  const auto ppm = static_cast<std::uint64_t>(scaled);
  if (static_cast<double>(ppm) / static_cast<double>(kPartsPerMillion) != ratio) return std::nullopt;
  return ppm;
}

std::uint64_t floor_sum(std::uint64_t n, std::uint64_t m, std::uint64_t a, std::uint64_t b) {
  if (m == 0) throw std::invalid_argument("floor_sum: m must be positive");
  std::uint64_t sum = 0;
  while (true) {
    if (a >= m) {
      // floor((a i + b) / m) = (a / m) i + floor(((a mod m) i + b) / m)
      sum += (n * (n - 1) / 2) * (a / m);
      a %= m;
    }
    if (b >= m) {
      sum += n * (b / m);
      b %= m;
    }
    // Now a, b < m: count lattice points under the line, swapping the roles of a and m.
    const std::uint64_t y_max = a * n + b;
    if (y_max < m) break;
    n = y_max / m;
    b = y_max % m;
    std::swap(m, a);
  }
  return sum;
}

RatioRowSums ratio_row_sums(std::uint64_t ppm, std::uint64_t v_first, std::uint64_t v_last) {
  RatioRowSums s;
  if (ppm > kPartsPerMillion) throw std::invalid_argument("ratio_row_sums: " + std::to_string(ppm) + " ppm is above 1");
  if (v_first > v_last || ppm == 0) return s;  // k = 0 everywhere: no ops, nothing kept
  if (v_first == 0 || v_last > kMaxExactVisible) {
    throw std::invalid_argument("ratio_row_sums: visible keys [" + std::to_string(v_first) + ", " + std::to_string(v_last) +
                                "] outside [1, 2^21]");
  }
  constexpr std::uint64_t U = kPartsPerMillion;
  // k(v) = floor((ppm v + U - 1) / U); over v = v_first + i: a = ppm, b = ppm v_first + U - 1.
  s.kept = floor_sum(v_last - v_first + 1, U, ppm, ppm * v_first + U - 1);
  // k is non-decreasing in v: walk the ranges of constant depth max(1, ceil(log2 k)).
  // Depth d covers k <= 2^d, i.e. ppm v <= 2^d U, i.e. v <= floor(2^d U / ppm).
  const std::uint64_t k_first = (ppm * v_first + U - 1) / U;
  std::uint64_t depth = std::max<std::uint64_t>(1, static_cast<std::uint64_t>(std::bit_width(k_first - 1)));
  std::uint64_t v = v_first;
  while (v <= v_last) {
    const std::uint64_t end = std::min(v_last, ((std::uint64_t{1} << depth) * U) / ppm);
    // sum of v..end = (v + end) (end - v + 1) / 2: one of the two factors is even.
    const std::uint64_t count = end - v + 1;
    const std::uint64_t series = (v + end) % 2 == 0 ? (v + end) / 2 * count : count / 2 * (v + end);
    s.ops += depth * series;
    v = end + 1;
    ++depth;
  }
  return s;
}

}  // namespace socsim::kernels
