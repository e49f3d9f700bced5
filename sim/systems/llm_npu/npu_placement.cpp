#include "sim/systems/llm_npu/npu_placement.h"

#include <algorithm>

namespace socsim::systems::llm_npu {

bool NpuPlacement::all_on_npu() const {
  return std::all_of(attention.begin(), attention.end(), [](bool b) { return b; }) &&
         std::all_of(ffn.begin(), ffn.end(), [](bool b) { return b; });
}

std::uint64_t attention_weight_bytes(const model::ModelConfig& m) {
  const std::uint64_t q = m.heads * m.head_dim, kv = m.kv_heads * m.head_dim;
  return m.hidden * (q + 2 * kv) + q * m.hidden;
}

std::uint64_t ffn_weight_bytes(const model::ModelConfig& m) { return (m.gated_mlp ? 3 : 2) * m.hidden * m.intermediate; }

NpuPlacement place_on_npu(const model::ModelConfig& m, std::uint64_t address_space_bytes) {
  NpuPlacement p;
  p.attention.assign(m.layers, false);
  p.ffn.assign(m.layers, false);
  std::uint64_t left = address_space_bytes;
  const auto take = [&](std::vector<bool>& v, std::uint64_t bytes) {
    for (std::uint64_t l = 0; l < m.layers; ++l) {
      if (bytes <= left) {
        v[l] = true;
        left -= bytes;
        p.npu_weight_bytes += bytes;
      } else {
        p.cpu_weight_bytes += bytes;
      }
    }
  };
  take(p.ffn, ffn_weight_bytes(m));
  take(p.attention, attention_weight_bytes(m));
  return p;
}

}  // namespace socsim::systems::llm_npu
