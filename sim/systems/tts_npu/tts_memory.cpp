#include "sim/systems/tts_npu/tts_memory.h"

#include <cmath>

#include "kernels/quant/block_quant.h"
#include "sim/model/graph_builder.h"

namespace socsim::systems::tts {

nlohmann::ordered_json NpuFootprint::json() const {
  return {{"layer_weights", layer_weights}, {"kv_cache", kv_cache}, {"lm_head", lm_head}, {"logits", logits}, {"total", total()}};
}

NpuFootprint npu_footprint(const model::ModelConfig& m, std::uint64_t batch, std::uint64_t context, bool lm_head_on_npu,
                           bool q8_0_down) {
  using kernels::BlockFormat;
  const double q4 = kernels::block_bits_per_weight(BlockFormat::kQ4_0) / 8, q8 = kernels::block_bits_per_weight(BlockFormat::kQ8_0) / 8;
  const double down = static_cast<double>(m.hidden * m.intermediate);
  const double rest = static_cast<double>(m.params_per_layer()) - down;
  NpuFootprint f;
  f.layer_weights = static_cast<std::uint64_t>(std::ceil(static_cast<double>(m.layers) * (rest * q4 + down * (q8_0_down ? q8 : q4))));
  f.kv_cache = static_cast<std::uint64_t>(static_cast<double>(batch * context) * model::kv_cache_bytes_per_token(m, 2));
  if (lm_head_on_npu) {
    f.lm_head = static_cast<std::uint64_t>(std::ceil(static_cast<double>(m.lm_head_params()) * q4));
    f.logits = batch * m.vocab * 4;
  }
  return f;
}

}  // namespace socsim::systems::tts
