#pragma once
// Which matmul groups of which layers run on the NPU. The NPU maps at most npu.address_space of
// weights (4 GiB on V75); when a model's INT8 weights exceed it, llm.npu (4) gives the
// compute-heavy FFN the NPU first: FFN weights of layers 0, 1, ... while they fit, then the
// attention projections (q, k, v, o) of layers 0, 1, ... in what is left. The rest runs on the
// CPU with the same INT8 weights. (Activation buffers and graph metadata are not counted against
// the address space; weights dominate by orders of magnitude.)
#include <cstdint>
#include <vector>

#include "sim/model/model_config.h"

namespace socsim::systems::llm_npu {

struct NpuPlacement {
  std::vector<bool> attention;  // q/k/v/o of layer l on the NPU
  std::vector<bool> ffn;        // gate/up/down (fc1/fc2) of layer l on the NPU
  std::uint64_t npu_weight_bytes = 0;
  std::uint64_t cpu_weight_bytes = 0;  // decoder-layer weights left to the CPU
  bool all_on_npu() const;
};

std::uint64_t attention_weight_bytes(const model::ModelConfig& m);  // INT8, one layer
std::uint64_t ffn_weight_bytes(const model::ModelConfig& m);        // INT8, one layer

NpuPlacement place_on_npu(const model::ModelConfig& m, std::uint64_t address_space_bytes);

}  // namespace socsim::systems::llm_npu
