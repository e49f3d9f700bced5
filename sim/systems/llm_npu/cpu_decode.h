#pragma once
// llm.npu's end of a request: sample the first token after `prefill_last`, then decode on the CPU
// backend with the same per-tensor INT8 weights (full attention), outlier activations handled in
// float by the CPU itself (numerically the shadow path on every layer; plain min-max with
// `activation_scale: minmax`). Marks plan.prefill_end and each decode step's end. Shared by
// llm-npu and shadowAttn, which keeps llm.npu's decode.
#include "sim/model/model_config.h"
#include "sim/runtime/job.h"
#include "sim/systems/llm_npu/llm_npu_options.h"
#include "sim/systems/system.h"

namespace socsim::systems::llm_npu {

// The jobs append_cpu_decode adds for `r` (it reserves them; a planner reserving its whole plan
// counts them in).
std::uint64_t cpu_decode_jobs(const Options& o, const model::ModelConfig& m, const RequestShape& r);

void append_cpu_decode(runtime::Plan& plan, const Options& o, const model::ModelConfig& m, const RequestShape& r,
                       std::uint32_t prefill_last);

}  // namespace socsim::systems::llm_npu
