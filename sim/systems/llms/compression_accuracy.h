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

// Attention probabilities of every (layer, head) for the query rows `q` (per layer [R, heads x
// head_dim], the last R of the cache's n positions) over the cache: R x n row-major, causal
// (zeros right of each row's position). The input of token_density.
std::vector<std::vector<float>> attention_maps(const TinyDecoder& m, const std::vector<LayerKv>& kv, const std::vector<kernels::Tensor>& q);

// Relative error (L2) of the attention outputs of the last `query_rows` of the rows `q` (the last
// R positions, as above) over the cache compressed to `level` per chunk, against the INT8 cache.
// INT8 base: per-channel symmetric scales over the context (max |x| / 127), per layer, K and V.
double compressed_attention_error(const TinyDecoder& m, const std::vector<LayerKv>& kv, const std::vector<kernels::Tensor>& q,
                                  const std::vector<int>& level, std::uint32_t chunk_tokens, std::int64_t query_rows);

// INT8 base: per-channel symmetric scales over the context (max |x| / 127), per layer, K and V.
CompressionAccuracy compression_accuracy(const TinyDecoder& m, const std::vector<int>& tokens, std::uint32_t chunk_tokens,
                                         double global_ratio, std::int64_t query_rows);

}  // namespace socsim::systems::llms
