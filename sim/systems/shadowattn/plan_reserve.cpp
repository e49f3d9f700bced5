#include "sim/systems/shadowattn/plan_reserve.h"

#include <algorithm>

namespace socsim::systems::shadowattn {

std::uint64_t attention_jobs_bound(AttentionVariant v, const Options& o, const model::ModelConfig& m) {
  switch (v) {
    case AttentionVariant::kCgSparse: return 3;
    case AttentionVariant::kShadow: return 3 * static_cast<std::uint64_t>(m.heads) + (o.reorder ? 1 : 0);
    case AttentionVariant::kCgFull:
    case AttentionVariant::kCgBlockSparse:
    case AttentionVariant::kNpuFull: return 1;
  }
  return 1;
}

void reserve_plan_jobs(runtime::Plan& plan, const runtime::Plan& host, AttentionVariant v, const Options& o, const model::ModelConfig& m,
                       std::uint64_t decode_jobs) {
  // Each host job holding an attention becomes the ops before it (when there are any: the host
  // usually gives them a job of their own), the attention's jobs and the ops after it.
  std::uint64_t extra = 0;
  for (const runtime::Job& j : host.jobs) {
    if (j.unit == kernels::Unit::kNpu) continue;
    const auto scores = std::find_if(j.ops.begin(), j.ops.end(), [](const model::GraphOp& g) { return g.op.kind == model::OpKind::kAttnScores; });
    if (scores != j.ops.end()) extra += (scores != j.ops.begin() ? 1 : 0) + attention_jobs_bound(v, o, m);
  }
  const std::uint64_t total = host.jobs.size() + extra + decode_jobs;
  if (total <= runtime::kReservedJobsLimit) plan.jobs.reserve(total);
}

}  // namespace socsim::systems::shadowattn
