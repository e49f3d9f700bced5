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
  // Densest first, ties by position (a stable sort's order). Sorted as (density, position) pairs:
  // a stable sort of positions, each comparison reading the densities, was half of a long serve.
  std::vector<std::pair<double, std::size_t>> ranked(n);
  for (std::size_t i = 0; i < n; ++i) ranked[i] = {density[i], i};
  std::sort(ranked.begin(), ranked.end(), [](const auto& a, const auto& b) { return a.first != b.first ? a.first > b.first : a.second < b.second; });
  std::vector<std::size_t> order(n);
  for (std::size_t r = 0; r < n; ++r) order[r] = ranked[r].second;
  double weight[kLevels];
  for (int w = 0; w < kLevels; ++w) weight[w] = objective == Objective::kKeptInformation ? kLevelRatio[w] : 1.0 / kLevelRatio[w];

  // In quarter-chunk units: 4 n8 + 2 n4 + n2 <= 4 g n, with n2 = n - n8 - n4. A chunk's floor
  // bounds it: only floor-0 chunks can take 8/8, only floor <= 1 chunks 4/8. For a given n8 the
  // 8/8 set is the densest n8 floor-0 chunks and the 4/8 set the densest n4 of the chunks left
  // that may take it (exchanging a denser chunk into a heavier level never lowers the value), so
  // scanning n8 is exact. Chunks held at 2/8 by their floor cost one quarter, which leaves the
  // rest the room: the mean kept ratio stays at the target while it can.
  //
  // Each n8 is valued in O(1) from prefix sums (the whole scan is O(n log n), the sort; a scan that
  // re-ranked every chunk for every n8 took minutes on a 128K-token window of 16-token chunks):
  //   value = w2 D + (w0 - w2) S8 + (w1 - w2) S4,
  // D the total density, S8 the densities at 8/8, S4 those at 4/8. E lists the chunks that may take
  // 4/8 (floor <= 1) densest first; the 8/8 chunks are E's first n8 floor-0 entries. If the n8-th
  // of them sits at E[p], E[0..p] holds p + 1 - n8 floor-1 chunks, all free for 4/8 and denser
  // than anything after p: S4 is the first n4 of them, or all of them plus E's next entries after p.
  const double budget = 4.0 * global_ratio * static_cast<double>(n) + 1e-9;
  std::vector<std::size_t> e;                   // order positions of floor <= 1 chunks
  std::vector<double> pre_e{0.0}, pre1{0.0}, pre0{0.0};  // prefix sums over E, its floor-1 and floor-0 entries
  std::vector<std::size_t> pos0;                // index in E of each floor-0 entry
  double total = 0;
  for (std::size_t r = 0; r < n; ++r) {
    const std::size_t i = order[r];
    total += density[i];
    const int f = floor_of(i);
    if (f > 1) continue;
    if (f == 0) {
      pos0.push_back(e.size());
      pre0.push_back(pre0.back() + density[i]);
    } else {
      pre1.push_back(pre1.back() + density[i]);
    }
    e.push_back(i);
    pre_e.push_back(pre_e.back() + density[i]);
  }
  const std::size_t eligible8 = pos0.size();
  double best = -1;
  std::size_t best_n8 = 0, best_n4 = 0;
  for (std::size_t n8 = 0; n8 <= eligible8; ++n8) {
    const double room = budget - 3.0 * static_cast<double>(n8) - static_cast<double>(n);  // = n4 quarters left
    if (room < 0) break;
    const std::size_t n4 = std::min(static_cast<std::size_t>(std::floor(room)), e.size() - n8);
    const std::size_t upto = n8 == 0 ? 0 : pos0[n8 - 1] + 1;  // E[0..upto) holds the 8/8 chunks
    const std::size_t free1 = upto - n8;                        // floor-1 entries among them
    const double s4 = n4 <= free1 ? pre1[n4] : pre1[free1] + pre_e[upto + (n4 - free1)] - pre_e[upto];
    const double value = weight[2] * total + (weight[0] - weight[2]) * pre0[n8] + (weight[1] - weight[2]) * s4;
    if (value > best + 1e-12 * std::abs(best)) {
      best = value;
      best_n8 = n8;
      best_n4 = n4;
    }
  }
  // The levels of the best n8: the first best_n8 floor-0 entries of E at 8/8, the next best_n4
  // entries of E at 4/8, everything else at 2/8.
  std::vector<int> level(n, 2);
  std::size_t taken8 = 0, taken4 = 0;
  for (const std::size_t i : e) {
    if (floor_of(i) == 0 && taken8 < best_n8) {
      level[i] = 0, ++taken8;
    } else if (taken4 < best_n4) {
      level[i] = 1, ++taken4;
    }
  }
  return level;
}

}  // namespace socsim::systems::llms
