#pragma once
// The swapping-recompute pipeline's planner (LLMS §3.3, Equation 4): given the missing chunks of
// a context (their compression level and where they sit), choose which to recompute so that
//   max( T_re(chunks recomputed), T_IO(chunks read) )
// is smallest. The paper writes r_w < x_w per level; taken literally it would forbid ever
// recomputing every missing chunk of a level, which is sometimes the optimum (a slow disk), so
// <= is used.
//
// Each chunk read costs its level's read time c_w (per request + bytes + unpacking); recomputing
// costs by the tokens recomputed and the query-key pairs they attend over (recompute_cost.h): a
// chunk late in a long context attends over all of it, so it costs more to recompute than one
// near the start. Chunks are ranked three ways: by read time saved per recompute second (one
// chunk's recompute taken at the mean per-token cost of recomputing every missing token cold plus
// its own attention over the context before it), by read time alone, and earliest first; a scan
// of every prefix of each ranking (at most a context's chunk count, a few hundred) evaluates the
// true costs and keeps the best plan of all. When every chunk costs the same to recompute (no
// attention term, equal sizes) the read-time ranking is exact: for any count R recomputed, saving the most I/O means taking the R
// chunks of largest c_w (an exchange argument; the heaviest level is usually the costliest, but
// unpacking a compressed chunk can cost more than the bytes it saves). With the attention term
// the ratio ranking is the greedy of a knapsack, optimal for the fractional problem; the plan is
// never worse than the read-time ranking's, a planner blind to positions
// (tests/unit/llms/load_planner_test.cpp checks both, against every subset).
//
// What is minimized is the realized time of the layer-wise pipeline (pipelined_seconds below),
// max(T_re, T_IO) + min(T_re, T_IO) / L: the paper's max() plus the first layer's I/O and the last
// layer's recompute, which cannot overlap. For large L it is the paper's objective; unlike it, it
// never picks a split slower than reading everything. objective_s keeps the paper's max().
#include <array>
#include <cstdint>
#include <vector>

#include "sim/systems/llms/compression_levels.h"
#include "sim/systems/llms/service_costs.h"

namespace socsim::systems::llms {

using LevelCounts = std::array<std::uint64_t, kLevels>;

// A chunk not in memory: its compression level, its tokens and the position of its first token in
// the context (the tokens before it, which its recompute attends over).
struct MissingChunk {
  int level = 0;
  std::uint32_t tokens = 0;
  std::uint64_t start = 0;
};

struct LoadPlan {
  LevelCounts recompute{};  // chunks recomputed per level; the rest are read
  double recompute_tokens = 0, recompute_pairs = 0;  // what recompute_s (and its energy) is of
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
LoadPlan plan_load(const std::vector<MissingChunk>& missing, const ServiceCosts& costs, std::uint64_t chunk_bytes,
                   std::uint32_t layers, bool allow_recompute);

}  // namespace socsim::systems::llms
