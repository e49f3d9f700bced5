#pragma once
// Ops through llama.cpp's kernels (kernels/llamacpp/), for jobs whose cpu_engine is kLlamaCpp:
// K-quant matmuls (a W4A16 placement: Q4_K_M, the Q6_K share of each matrix by the model's layer
// count) and the parts of a dense attention. Other ops lower as on the optimized engine.
#include <cstdint>

#include "kernels/attention/attention_shape.h"
#include "kernels/lowering/work.h"
#include "sim/model/layer_ops.h"
#include "sim/model/model_config.h"
#include "sim/runtime/job.h"

namespace socsim::runtime::lowering {

bool llamacpp_lowers(const model::OpDesc& op, Precision p);
// `attention`: the layer's attention shape (attention ops only; ignored for matmuls).
kernels::CpuWork lower_llamacpp_cpu(const model::OpDesc& op, const model::ModelConfig& m, std::uint32_t threads,
                                    const kernels::AttentionShape& attention);

}  // namespace socsim::runtime::lowering
