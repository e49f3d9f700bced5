#include "sim/systems/shadowattn/calibration.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <stdexcept>

namespace socsim::systems::shadowattn {

std::vector<double> head_ratios(const std::vector<double>& head_importance, const std::vector<double>& layer_importance,
                                std::uint64_t heads_per_layer, double r, double clamp) {
  const std::size_t n = head_importance.size();
  if (n == 0 || heads_per_layer == 0 || layer_importance.size() * heads_per_layer < n) {
    throw std::invalid_argument("head_ratios: importance sizes do not match");
  }
  std::vector<double> score(n);
  for (std::size_t i = 0; i < n; ++i) score[i] = std::max(0.0, head_importance[i] * layer_importance[i / heads_per_layer]);
  const double mean = std::accumulate(score.begin(), score.end(), 0.0) / static_cast<double>(n);
  if (mean <= 0) return std::vector<double>(n, std::min(1.0, r));
  for (auto& s : score) s = std::clamp(s, mean / clamp, mean * clamp);
  // Water-filling: heads at the cap keep 1, the rest share what is left in proportion.
  std::vector<double> ratio(n, 0.0);
  std::vector<bool> capped(n, false);
  double budget = std::min(1.0, r) * static_cast<double>(n);
  for (int iter = 0; iter < 64; ++iter) {
    double sum = 0;
    for (std::size_t i = 0; i < n; ++i) sum += capped[i] ? 0.0 : score[i];
    bool changed = false;
    for (std::size_t i = 0; i < n; ++i) {
      if (capped[i]) continue;
      ratio[i] = sum > 0 ? budget * score[i] / sum : 0.0;
      if (ratio[i] > 1.0) {
        ratio[i] = 1.0;
        capped[i] = true;
        budget -= 1.0;
        changed = true;
      }
    }
    if (!changed) break;
  }
  return ratio;
}

std::vector<ScalePair> bucket_grid(ScalePair mean, std::uint32_t n, double step) {
  if (n == 0) throw std::invalid_argument("bucket_grid: no buckets");
  std::uint32_t k = static_cast<std::uint32_t>(std::ceil(std::sqrt(static_cast<double>(n))));
  if (k % 2 == 0) ++k;
  const int half = static_cast<int>(k / 2);
  struct Cell {
    int a, b;
  };
  std::vector<Cell> cells;
  for (int a = -half; a <= half; ++a) {
    for (int b = -half; b <= half; ++b) cells.push_back({a, b});
  }
  std::stable_sort(cells.begin(), cells.end(), [](const Cell& x, const Cell& y) {
    return x.a * x.a + x.b * x.b < y.a * y.a + y.b * y.b;
  });
  cells.resize(n);
  std::vector<ScalePair> grid;
  for (const auto& c : cells) grid.push_back({mean.q * std::pow(step, c.a), mean.k * std::pow(step, c.b)});
  return grid;
}

std::size_t nearest_bucket(const std::vector<ScalePair>& grid, ScalePair s) {
  if (grid.empty()) throw std::invalid_argument("nearest_bucket: no buckets");
  std::size_t best = 0;
  double best_mse = std::numeric_limits<double>::infinity();
  for (std::size_t i = 0; i < grid.size(); ++i) {
    const double dq = s.q - grid[i].q, dk = s.k - grid[i].k;
    const double mse = (dq * dq + dk * dk) / 2;
    if (mse < best_mse) best_mse = mse, best = i;
  }
  return best;
}

double synthetic_uniform(std::uint64_t seed, std::uint64_t a, std::uint64_t b, std::uint64_t c) {
  // splitmix64 over the combined key
  std::uint64_t x = seed * 0x9E3779B97F4A7C15ull ^ (a + 1) * 0xBF58476D1CE4E5B9ull ^ (b + 7) * 0x94D049BB133111EBull ^ (c + 13) * 0xD6E8FEB86659FD93ull;
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  x ^= x >> 31;
  return static_cast<double>(x >> 11) / 9007199254740992.0;
}

Importance synthetic_importance(std::uint64_t seed, std::uint64_t layers, std::uint64_t heads_per_layer) {
  Importance imp;
  for (std::uint64_t l = 0; l < layers; ++l) {
    imp.layer.push_back(0.2 + 0.8 * synthetic_uniform(seed, 1, l, 0));
    for (std::uint64_t h = 0; h < heads_per_layer; ++h) {
      const double u = 0.05 + 0.95 * synthetic_uniform(seed, 2, l, h);
      imp.head.push_back(u * u);
    }
  }
  return imp;
}

ScalePair synthetic_scales(std::uint64_t seed, std::uint64_t layer, std::uint64_t head, std::uint64_t chunk, double spread) {
  // Box-Muller from two uniforms, sigma `spread` in log space.
  const auto normal = [&](std::uint64_t which) {
    const double u1 = std::max(1e-12, synthetic_uniform(seed, 3 + which, layer * 4096 + head, chunk));
    const double u2 = synthetic_uniform(seed, 5 + which, layer * 4096 + head, chunk);
    return std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
  };
  return {std::exp(spread * normal(0)), std::exp(spread * normal(1))};
}

}  // namespace socsim::systems::shadowattn
