#pragma once
// The swapping-recompute pipeline's planner (LLMS §3.3, Equation 4): given the missing chunks of
// a context by compression level, choose how many of each level to recompute so that
//   max( T_re(sum_w r_w), T_IO(chunks read) )
// is smallest, 0 <= r_w <= x_w. The paper writes r_w < x_w; taken literally it would forbid ever
// recomputing every missing chunk of a level, which is sometimes the optimum (a slow disk), so
// <= is used.
//
// Solved exactly, not relaxed: recomputing costs the same for every chunk while each recomputed
// chunk saves its own read time c_w (per request + bytes + unpacking). For any total R
// recomputed, saving the most I/O means taking the R chunks of largest c_w (an exchange argument:
// a cheaper chunk recomputed instead of a costlier one read only adds I/O). The heaviest level is
// usually the costliest, but not always: unpacking a compressed chunk can cost more than the
// bytes it saves, so levels are ranked by c_w. So the problem reduces
// to one integer R in [0, sum x_w]; T_re rises and the I/O left falls with R, and a scan of
// every R finds the exact integer optimum (at most a context's chunk count, a few hundred).
//
// What is minimized is the realized time of the layer-wise pipeline (pipelined_seconds below),
// max(T_re, T_IO) + min(T_re, T_IO) / L: the paper's max() plus the first layer's I/O and the last
// layer's recompute, which cannot overlap. For large L it is the paper's objective; unlike it, it
// never picks a split slower than reading everything. objective_s keeps the paper's max().
#include <array>
#include <cstdint>

#include "sim/systems/llms/compression_levels.h"
#include "sim/systems/llms/service_costs.h"

namespace socsim::systems::llms {

using LevelCounts = std::array<std::uint64_t, kLevels>;

struct LoadPlan {
  LevelCounts recompute{};  // chunks recomputed per level; the rest are read
  double recompute_s = 0, io_s = 0;
  double objective_s = 0;   // max(recompute_s, io_s): the paper's objective
  double pipelined_s = 0;   // layer-wise pipeline (below): what the planner minimizes
  std::uint64_t read_bytes = 0, read_requests = 0;
  std::uint64_t delivered_bytes = 0;  // the chunks read, as inference holds them (chunk_bytes each)
  std::uint64_t packed_bytes = 0;     // of those, the ones unpacked from compressed levels
};

// Read time of chunks: the per-chunk cost (its storage requests and host work), ratio_w x
// chunk_bytes stored each, chunk_bytes delivered each, the compressed ones unpacked.
std::uint64_t packed_bytes(const LevelCounts& chunks, std::uint64_t chunk_bytes);
double read_seconds(const LevelCounts& chunks, const IoCost& read, std::uint64_t chunk_bytes);
std::uint64_t level_bytes(const LevelCounts& chunks, std::uint64_t chunk_bytes);

// The realized load time of a split run layer by layer (the paper's prototype: the I/O of layer
// n+1 overlaps the recompute of layer n, and recompute of layer n needs layer n's resident KV):
// io/L + (L-1) max(re, io)/L + re/L.
double pipelined_seconds(double recompute_s, double io_s, std::uint32_t layers);

// allow_recompute = false: everything is read (the pipeline switched off). layers: the depth of
// the layer-wise pipeline, 1 when a chunk's layers arrive together (nothing overlaps).
LoadPlan plan_load(const LevelCounts& missing, const ServiceCosts& costs, std::uint64_t chunk_bytes, std::uint32_t layers,
                   bool allow_recompute);

}  // namespace socsim::systems::llms
