#include "sim/systems/llms/compression_levels.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace socsim::systems::llms {

std::vector<double> token_density(const std::vector<const float*>& maps, std::int64_t rows, std::int64_t cols) {
  std::vector<double> d(static_cast<std::size_t>(cols), 0.0);
  if (maps.empty()) return d;
  const std::int64_t first_row_pos = cols - rows;  // key position of query row 0
  for (const float* a : maps) {
    for (std::int64_t c = 0; c < cols; ++c) {
      double sum = 0;
      for (std::int64_t r = 0; r < rows; ++r) sum += a[r * cols + c];
      const std::int64_t seeing = rows - std::max<std::int64_t>(0, c - first_row_pos);
      d[static_cast<std::size_t>(c)] += sum / static_cast<double>(seeing);
    }
  }
  for (auto& x : d) x /= static_cast<double>(maps.size());
  return d;
}

std::vector<double> chunk_density(const std::vector<double>& token_density, std::uint32_t chunk_tokens) {
  std::vector<double> out;
  for (std::size_t p = 0; p < token_density.size(); p += chunk_tokens) {
    const std::size_t q = std::min(token_density.size(), p + chunk_tokens);
    out.push_back(std::accumulate(token_density.begin() + static_cast<long>(p), token_density.begin() + static_cast<long>(q), 0.0) /
                  static_cast<double>(q - p));
  }
  return out;
}

double synthetic_density(runtime::PortableRng& rng, double sigma) { return std::exp(sigma * rng.standard_normal()); }

std::vector<int> assign_levels(const std::vector<double>& density, double global_ratio, const std::vector<int>& floor,
                               Objective objective) {
  const std::size_t n = density.size();
  const auto floor_of = [&](std::size_t i) { return i < floor.size() ? floor[i] : 0; };
  std::vector<std::size_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return density[a] > density[b]; });
  double weight[kLevels];
  for (int w = 0; w < kLevels; ++w) weight[w] = objective == Objective::kKeptInformation ? kLevelRatio[w] : 1.0 / kLevelRatio[w];

  // In quarter-chunk units: 4 n8 + 2 n4 + n2 <= 4 g n, with n2 = n - n8 - n4. A chunk's floor
  // bounds it: only floor-0 chunks can take 8/8, only floor <= 1 chunks 4/8. For a given n8 the
  // 8/8 set is the densest n8 floor-0 chunks and the 4/8 set the densest n4 of the chunks left
  // that may take it (exchanging a denser chunk into a heavier level never lowers the value), so
  // scanning n8 is exact. Chunks held at 2/8 by their floor cost one quarter, which leaves the
  // rest the room: the mean kept ratio stays at the target while it can.
  const double budget = 4.0 * global_ratio * static_cast<double>(n) + 1e-9;
  std::size_t eligible8 = 0;
  for (std::size_t i = 0; i < n; ++i) eligible8 += floor_of(i) == 0 ? 1 : 0;
  std::vector<int> level(n, 2), best_level(n, 2);
  double best = -1;
  for (std::size_t n8 = 0; n8 <= eligible8; ++n8) {
    const double room = budget - 3.0 * static_cast<double>(n8) - static_cast<double>(n);  // = n4 quarters left
    if (room < 0) break;
    std::size_t n4 = static_cast<std::size_t>(std::floor(room));
    std::size_t taken8 = 0;
    double value = 0;
    for (std::size_t r = 0; r < n; ++r) {
      const std::size_t i = order[r];
      const int f = floor_of(i);
      if (f == 0 && taken8 < n8) {
        level[i] = 0, ++taken8;
      } else if (f <= 1 && n4 > 0) {
        level[i] = 1, --n4;
      } else {
        level[i] = 2;
      }
      value += weight[level[i]] * density[i];
    }
    if (value > best + 1e-12 * std::abs(best)) {
      best = value;
      best_level = level;
    }
  }
  return best_level;
}

}  // namespace socsim::systems::llms
