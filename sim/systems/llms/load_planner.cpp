#include "sim/systems/llms/load_planner.h"

#include <algorithm>
#include <cmath>

namespace socsim::systems::llms {

std::uint64_t level_bytes(const LevelCounts& chunks, std::uint64_t chunk_bytes) {
  std::uint64_t b = 0;
  for (int w = 0; w < kLevels; ++w) b += chunks[w] * static_cast<std::uint64_t>(std::llround(kLevelRatio[w] * static_cast<double>(chunk_bytes)));
  return b;
}

double unpacked_bytes(const LevelCounts& chunks, std::uint64_t chunk_bytes) {
  double b = 0;
  for (int w = 1; w < kLevels; ++w) b += static_cast<double>(chunks[w]) * static_cast<double>(chunk_bytes);
  return b;
}

double read_seconds(const LevelCounts& chunks, const IoCost& read, std::uint64_t chunk_bytes) {
  double requests = 0;
  for (auto n : chunks) requests += static_cast<double>(n);
  return read.seconds(requests, static_cast<double>(level_bytes(chunks, chunk_bytes))) +
         unpacked_bytes(chunks, chunk_bytes) * read.per_unpacked_byte_s;
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
    p.unpacked_bytes = static_cast<std::uint64_t>(unpacked_bytes(read, chunk_bytes));
    p.recompute_s = costs.recompute_s.at(static_cast<double>(r));
    p.io_s = read_seconds(read, costs.read, chunk_bytes);
    p.objective_s = std::max(p.recompute_s, p.io_s);
    p.pipelined_s = pipelined_seconds(p.recompute_s, p.io_s, layers);
    return p;
  };
  LoadPlan best = evaluate({});
  if (!allow_recompute) return best;
  for (std::uint64_t r = 1; r <= total; ++r) {
    LevelCounts re{};
    std::uint64_t left = r;
    for (int w = 0; w < kLevels; ++w) {  // heaviest level first
      re[w] = std::min(left, missing[w]);
      left -= re[w];
    }
    const auto p = evaluate(re);
    if (p.pipelined_s < best.pipelined_s) best = p;
  }
  return best;
}

}  // namespace socsim::systems::llms
