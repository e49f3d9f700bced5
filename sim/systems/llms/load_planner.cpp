#include "sim/systems/llms/load_planner.h"

#include <algorithm>
#include <cmath>

namespace socsim::systems::llms {

std::uint64_t level_bytes(const LevelCounts& chunks, std::uint64_t chunk_bytes) {
  std::uint64_t b = 0;
  for (int w = 0; w < kLevels; ++w) b += chunks[w] * static_cast<std::uint64_t>(std::llround(kLevelRatio[w] * static_cast<double>(chunk_bytes)));
  return b;
}

std::uint64_t packed_bytes(const LevelCounts& chunks, std::uint64_t chunk_bytes) {
  std::uint64_t b = 0;
  for (int w = 1; w < kLevels; ++w) b += chunks[w] * chunk_bytes;
  return b;
}

double read_seconds(const LevelCounts& chunks, const IoCost& read, std::uint64_t chunk_bytes) {
  std::uint64_t requests = 0;
  for (auto n : chunks) requests += n;
  return read.seconds(static_cast<double>(requests), static_cast<double>(level_bytes(chunks, chunk_bytes)),
                      static_cast<double>(requests * chunk_bytes), static_cast<double>(packed_bytes(chunks, chunk_bytes)));
}

double pipelined_seconds(double recompute_s, double io_s, std::uint32_t layers) {
  if (recompute_s <= 0 || io_s <= 0) return recompute_s + io_s;
  const double l = static_cast<double>(layers);
  return io_s / l + (l - 1) * std::max(recompute_s, io_s) / l + recompute_s / l;
}

LoadPlan plan_load(const LevelCounts& missing, const ServiceCosts& costs, std::uint64_t chunk_bytes, std::uint32_t layers,
                   bool allow_recompute) {
  std::uint64_t total = 0;
  for (auto n : missing) total += n;
  auto evaluate = [&](const LevelCounts& re) {
    LoadPlan p;
    p.recompute = re;
    LevelCounts read{};
    std::uint64_t r = 0;
    for (int w = 0; w < kLevels; ++w) {
      read[w] = missing[w] - re[w];
      r += re[w];
      p.read_requests += read[w];
    }
    p.read_bytes = level_bytes(read, chunk_bytes);
    p.delivered_bytes = p.read_requests * chunk_bytes;
    p.packed_bytes = packed_bytes(read, chunk_bytes);
    p.recompute_s = costs.recompute_s.at(static_cast<double>(r));
    p.io_s = read_seconds(read, costs.read, chunk_bytes);
    p.objective_s = std::max(p.recompute_s, p.io_s);
    p.pipelined_s = pipelined_seconds(p.recompute_s, p.io_s, layers);
    return p;
  };
  LoadPlan best = evaluate({});
  if (!allow_recompute) return best;
  // Recompute takes the chunks whose read costs most first (see the header): levels in order of
  // one chunk's read time, costliest first (index order on ties: heavier first).
  std::array<int, kLevels> order{};
  std::array<double, kLevels> one{};
  for (int w = 0; w < kLevels; ++w) {
    order[w] = w;
    LevelCounts single{};
    single[w] = 1;
    one[w] = read_seconds(single, costs.read, chunk_bytes);
  }
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return one[a] > one[b]; });
  for (std::uint64_t r = 1; r <= total; ++r) {
    LevelCounts re{};
    std::uint64_t left = r;
    for (int w : order) {
      re[w] = std::min(left, missing[w]);
      left -= re[w];
    }
    const auto p = evaluate(re);
    if (p.pipelined_s < best.pipelined_s) best = p;
  }
  return best;
}

}  // namespace socsim::systems::llms
