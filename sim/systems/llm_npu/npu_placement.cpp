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

NpuPlacement place_on_npu(const model::ModelConfig& m, std::uint64_t address_space_bytes, std::uint32_t max_sessions) {
  max_sessions = std::max<std::uint32_t>(1, max_sessions);
  const std::uint64_t attention = attention_weight_bytes(m), ffn = ffn_weight_bytes(m), layer = attention + ffn;
  NpuPlacement p;
  // 1. Whole layers over as few sessions as hold them.
  if (layer <= address_space_bytes) {
    std::uint32_t sessions = 1;
    std::uint64_t left = address_space_bytes;
    for (std::uint64_t l = 0; l < m.layers && sessions <= max_sessions; ++l) {
      if (layer > left) ++sessions, left = address_space_bytes;
      left -= layer;
    }
    if (sessions <= max_sessions) {
      p.attention.assign(m.layers, true);
      p.ffn.assign(m.layers, true);
      p.npu_weight_bytes = layer * m.layers;
      p.sessions = sessions;
      return p;
    }
  }
  // 2. FFN first, then attention: each group into the first open session with room, else a new
  // session while there are sessions left, else the CPU.
  p.attention.assign(m.layers, false);
  p.ffn.assign(m.layers, false);
  std::vector<std::uint64_t> left{address_space_bytes};  // free bytes per open session
  const auto take = [&](std::vector<bool>& v, std::uint64_t bytes) {
    for (std::uint64_t l = 0; l < m.layers; ++l) {
      auto room = std::find_if(left.begin(), left.end(), [&](std::uint64_t free) { return bytes <= free; });
      if (room == left.end() && bytes <= address_space_bytes && left.size() < max_sessions) {
        left.push_back(address_space_bytes);
        room = std::prev(left.end());
      }
      if (room != left.end()) {
        v[l] = true;
        *room -= bytes;
        p.npu_weight_bytes += bytes;
      } else {
        p.cpu_weight_bytes += bytes;
      }
    }
  };
  take(p.ffn, ffn);
  take(p.attention, attention);
  p.sessions = static_cast<std::uint32_t>(left.size());
  return p;
}

}  // namespace socsim::systems::llm_npu
