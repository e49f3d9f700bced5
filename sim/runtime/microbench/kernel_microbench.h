#pragma once
// Microbenchmarks of kernels through their `lower` faces: softmax rows and attention (full on the
// CPU/GPU, FlashAttention-style on the NPU), run on the unit models.
#include <nlohmann/json.hpp>

#include "sim/runtime/microbench/microbench.h"

namespace socsim::runtime {

nlohmann::ordered_json kernel_softmax(const MicrobenchRequest& r);
nlohmann::ordered_json kernel_attention(const MicrobenchRequest& r);

}  // namespace socsim::runtime
