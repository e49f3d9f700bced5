#pragma once
// Which matmul groups of which layers run on the NPU. One NPU session (process domain) maps at most
// npu.address_space of weights (4 GiB on V75, llm.npu's "NPU memory region"), and a process may
// open npu.max_sessions of them, each with its own address space (llama.cpp's Hexagon backend
// splits models beyond one session by layers: docs/backend/snapdragon/developer.md).
//   1. Whole layers, in order, over as few sessions as hold them (a session takes layers while
//      their INT8 weights fit its space): every matmul on the NPU. Reconstruction of how llm.npu
//      runs 7B models (6.5 GB of INT8 weights) at the speed it reports (README).
//   2. When even max_sessions sessions cannot hold the layers, llm.npu's fallback (4): the
//      compute-heavy FFN first, FFN weights of layers 0, 1, ... then the attention projections
//      (q, k, v, o) of layers 0, 1, ..., each group into the first open session with room, else a
//      new session while there are any left. The rest runs on the CPU with the same INT8 weights.
// Activation buffers and graph metadata are not counted against the address space (weights
// dominate by orders of magnitude). Sessions share the one NPU: their graphs run one at a time.
#include <cstdint>
#include <vector>

#include "sim/model/model_config.h"

namespace socsim::systems::llm_npu {

struct NpuPlacement {
  std::vector<bool> attention;  // q/k/v/o of layer l on the NPU
  std::vector<bool> ffn;        // gate/up/down (fc1/fc2) of layer l on the NPU
  std::uint64_t npu_weight_bytes = 0;
  std::uint64_t cpu_weight_bytes = 0;  // decoder-layer weights left to the CPU
  std::uint32_t sessions = 1;          // NPU sessions the NPU weights are mapped over
  bool all_on_npu() const;
};

std::uint64_t attention_weight_bytes(const model::ModelConfig& m);  // INT8, one layer
std::uint64_t ffn_weight_bytes(const model::ModelConfig& m);        // INT8, one layer

NpuPlacement place_on_npu(const model::ModelConfig& m, std::uint64_t address_space_bytes, std::uint32_t max_sessions = 1);

}  // namespace socsim::systems::llm_npu
