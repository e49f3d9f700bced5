#include "sim/systems/llms/load_planner.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <vector>

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

LoadPlan plan_load(const std::vector<MissingChunk>& missing, const ServiceCosts& costs, std::uint64_t chunk_bytes,
                   std::uint32_t layers, bool allow_recompute) {
  LevelCounts all{};
  double all_tokens = 0;
  for (const auto& m : missing) {
    if (m.level < 0 || m.level >= kLevels) throw std::invalid_argument("plan_load: a chunk's level is out of range");
    ++all[m.level];
    all_tokens += m.tokens;
  }
  // The plan with `read` chunks read per level and the rest recomputed (tokens, pairs).
  auto evaluate = [&](const LevelCounts& read, double tokens, double pairs) {
    LoadPlan p;
    for (int w = 0; w < kLevels; ++w) {
      p.recompute[w] = all[w] - read[w];
      p.read_requests += read[w];
    }
    p.read_bytes = level_bytes(read, chunk_bytes);
    p.delivered_bytes = p.read_requests * chunk_bytes;
    p.packed_bytes = packed_bytes(read, chunk_bytes);
    p.recompute_tokens = tokens;
    p.recompute_pairs = pairs;
    p.recompute_s = costs.recompute_s.at(tokens, pairs);
    p.io_s = read_seconds(read, costs.read, chunk_bytes);
    p.objective_s = std::max(p.recompute_s, p.io_s);
    p.pipelined_s = pipelined_seconds(p.recompute_s, p.io_s, layers);
    return p;
  };
  LoadPlan best = evaluate(all, 0, 0);
  if (!allow_recompute || missing.empty()) return best;
  // The ranking (see the header): read seconds saved per recompute second.
  std::array<double, kLevels> one{};
  for (int w = 0; w < kLevels; ++w) {
    LevelCounts single{};
    single[w] = 1;
    one[w] = read_seconds(single, costs.read, chunk_bytes);
  }
  const double per_token = all_tokens > 0 ? costs.recompute_s.cold(all_tokens) / all_tokens : 0.0;
  std::vector<double> gain(missing.size());
  for (std::size_t i = 0; i < missing.size(); ++i) {
    const auto& m = missing[i];
    const double t = m.tokens, start = static_cast<double>(m.start);
    const double re = per_token * t + costs.recompute_s.per_pair() * t * start;
    gain[i] = re > 0 ? one[m.level] / re : std::numeric_limits<double>::infinity();
  }
  // Three rankings, each scanned prefix by prefix; the best plan of any is kept. The ratio is the
  // knapsack's greedy; read time alone is the exact order when chunks cost alike (and what a
  // planner blind to positions would do); earliest first favours the cheapest recomputes. No one of
  // them is always best (tests/unit/llms/load_planner_test.cpp).
  auto scan = [&](auto before) {
    std::vector<std::size_t> order(missing.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(), before);
    LevelCounts read = all;
    double tokens = 0, pairs = 0;
    for (std::size_t i : order) {
      const auto& m = missing[i];
      --read[m.level];
      tokens += m.tokens;
      pairs += RecomputeCost::pairs_of(static_cast<double>(m.start), m.tokens);
      const auto p = evaluate(read, tokens, pairs);
      if (p.pipelined_s < best.pipelined_s) best = p;
    }
  };
  // Ties: the heavier level (the old per-level order), then the earlier chunk.
  auto tie = [&](std::size_t a, std::size_t b) {
    if (missing[a].level != missing[b].level) return missing[a].level < missing[b].level;
    return missing[a].start < missing[b].start;
  };
  scan([&](std::size_t a, std::size_t b) { return gain[a] != gain[b] ? gain[a] > gain[b] : tie(a, b); });
  scan([&](std::size_t a, std::size_t b) {
    const double ra = one[missing[a].level], rb = one[missing[b].level];
    return ra != rb ? ra > rb : tie(a, b);
  });
  scan([&](std::size_t a, std::size_t b) { return missing[a].start != missing[b].start ? missing[a].start < missing[b].start : tie(a, b); });
  return best;
}

}  // namespace socsim::systems::llms
