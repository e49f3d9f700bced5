#pragma once
// What tts-npu maps into the NPU's 32-bit address space (TTS 3.1.2, 4): the decoder layers'
// weights (Q4_0, FFN-down Q8_0), every sample's KV cache (FP16, prompt + decode tokens), and,
// with lm_head on the NPU, its Q4_0 weights and the batch's FP32 logits. The paper keeps lm_head
// on the CPU because those two could keep a model from fitting at all; on 8 Gen 2 (2 GiB) the
// 3B models do not fit.
#include <cstdint>

#include <nlohmann/json.hpp>
#include "sim/model/model_config.h"

namespace socsim::systems::tts {

struct NpuFootprint {
  std::uint64_t layer_weights = 0, kv_cache = 0, lm_head = 0, logits = 0;
  std::uint64_t total() const { return layer_weights + kv_cache + lm_head + logits; }
  nlohmann::ordered_json json() const;
};

NpuFootprint npu_footprint(const model::ModelConfig& m, std::uint64_t batch, std::uint64_t context, bool lm_head_on_npu,
                           bool q8_0_down);

}  // namespace socsim::systems::tts
