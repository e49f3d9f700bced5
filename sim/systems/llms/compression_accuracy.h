#pragma once
// Functional check of tolerance-aware compression (LLMS §3.2, the setting of Figure 6b/12 on a
// small seeded decoder): chunk densities from the prefill's real attention scores, levels by
// assign_levels under the global ratio, each chunk's INT8 K/V requantized channel-wise to its
// level (kernels/quant/channel_requant.h), and the attention output of the last query rows over
// the compressed cache compared with the INT8 cache. Beside LLMS's assignment: uniform 4/8 (the
// same 50% memory) and the inverse assignment (densest chunks get the fewest bits).
#include <cstdint>
#include <vector>

#include "sim/systems/llms/interleaved_recompute.h"

namespace socsim::systems::llms {

struct CompressionAccuracy {
  double llms_rel_error = 0, uniform4_rel_error = 0, inverse_rel_error = 0;  // vs the INT8 cache
  double llms_kept_ratio = 0;                                                 // of INT8's bits
  std::vector<double> chunk_density;
  std::vector<int> llms_levels;
};

// INT8 base: per-channel symmetric scales over the context (max |x| / 127), per layer, K and V.
CompressionAccuracy compression_accuracy(const TinyDecoder& m, const std::vector<int>& tokens, std::uint32_t chunk_tokens,
                                         double global_ratio, std::int64_t query_rows);

}  // namespace socsim::systems::llms
