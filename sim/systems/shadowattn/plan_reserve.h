#pragma once
// How many jobs shadowAttn's plans hold, so they reserve them once (issue #21: a plan of some
// 13,000 jobs grown by doubling moved every job into freshly faulted pages at each growth).
#include <cstdint>

#include "sim/model/model_config.h"
#include "sim/runtime/job.h"
#include "sim/systems/shadowattn/shadowattn_options.h"
#include "sim/systems/shadowattn/shadowattn_system.h"

namespace socsim::systems::shadowattn {

// The most jobs one layer's attention of one chunk becomes: shadowAttn one per estimation launch
// (at most one per head; fewer when heads share a bucket), a top-k and a sparse-attention job per
// head and the planner's job (when it reorders); the baselines one, cg-sparse three.
std::uint64_t attention_jobs_bound(AttentionVariant v, const Options& o, const model::ModelConfig& m);

// Reserves `plan` for the host's jobs (`host`, llm.npu's prefill), one job more for each float
// subgraph holding a layer's attention (cut around it) plus that attention's jobs at most, and
// `decode_jobs`; up to runtime::kReservedJobsLimit.
void reserve_plan_jobs(runtime::Plan& plan, const runtime::Plan& host, AttentionVariant v, const Options& o, const model::ModelConfig& m,
                       std::uint64_t decode_jobs);

}  // namespace socsim::systems::shadowattn
