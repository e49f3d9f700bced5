#pragma once
// Tolerance-aware compression (LLMS §3.2): a chunk's information density from attention scores,
// and the assignment of compression levels {8/8, 4/8, 2/8} of the INT8 base to chunks ranked by
// density, under the context's global ratio.
#include <cstdint>
#include <vector>

#include "sim/runtime/workload/portable_rng.h"

namespace socsim::systems::llms {

inline constexpr int kLevels = 3;
// Fraction of the INT8 bits a level keeps; level 0 is the heaviest (8/8).
inline constexpr double kLevelRatio[kLevels] = {1.0, 0.5, 0.25};

// Per-token density from attention maps (one R x C row-major probability matrix per layer and
// head; the R query rows are the last R of the C key positions, causal). Token col's density is
// the mean over maps of (column sum) / (number of rows that can see col): the paper's worked
// example normalizer (R - col when R = C), not its printed 1/(R - row).
std::vector<double> token_density(const std::vector<const float*>& maps, std::int64_t rows, std::int64_t cols);
// Chunk densities: mean of the token densities in each run of `chunk_tokens` (the last may be short).
std::vector<double> chunk_density(const std::vector<double>& token_density, std::uint32_t chunk_tokens);

// Timing mode stand-in for attention scores: lognormal(0, sigma) densities. Attention mass is
// heavy-tailed (a few tokens draw most of it), which a lognormal reproduces; sigma = 0 makes all
// chunks equally dense.
double synthetic_density(runtime::PortableRng& rng, double sigma);

// What the scan maximizes over band sizes. kKeptInformation (default, the paper's stated intent):
// sum of ratio_w x D_i, so dense chunks keep bits. kPaperLiteral: the printed sum of
// (1 / ratio_w) x D_i. Either way the densest chunks get the heaviest level.
enum class Objective { kKeptInformation, kPaperLiteral };

// Levels for chunks with these densities: the densest n8 get 8/8, the next n4 4/8, the rest
// 2/8, with n8 + n4/2 + n2/4 <= global_ratio x n (the equality of the paper up to rounding to
// whole chunks); n8 is scanned, n4 is the most the constraint allows. `floor` (may be empty)
// holds each chunk's current level: requantization cannot give bits back, so a chunk never
// gets a lighter level than it has; the budget its compression frees goes to the chunks that can
// still take bits, so the mean kept ratio holds at global_ratio while floors allow. Ties rank by
// index (deterministic).
std::vector<int> assign_levels(const std::vector<double>& density, double global_ratio, const std::vector<int>& floor = {},
                               Objective objective = Objective::kKeptInformation);

}  // namespace socsim::systems::llms
