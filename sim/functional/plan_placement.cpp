#include "sim/functional/plan_placement.h"

#include <stdexcept>

namespace socsim::functional {

PlanPlacement::PlanPlacement(const runtime::Plan& plan) {
  std::map<std::uint64_t, std::uint64_t> chunks;
  for (const auto& job : plan.jobs) {
    for (const auto& g : job.ops) {
      ops_.insert_or_assign(Key{g.phase, g.step, g.layer, g.op.name}, Entry{{job.unit, job.precision, job.outliers, job.outlier_channels, job.npu_kernels}, g.op});
      // shadowAttn's plans: the per-head top-k (or block-sparse attention) gives the chunk's rows.
      const bool attention = g.op.kind == model::OpKind::kAttnScores || g.op.kind == model::OpKind::kTopK ||
                             g.op.kind == model::OpKind::kBlockSparseAttn;
      if (g.phase == model::Phase::kPrefill && g.layer == 0 && attention) chunks[g.step] = g.op.m;
    }
  }
  std::uint64_t expect = 0;
  for (const auto& [step, rows] : chunks) {
    if (step != expect++) throw std::logic_error("plan's prefill chunks are not numbered 0, 1, ...");
    chunk_rows_.push_back(rows);
  }
  if (chunk_rows_.empty()) throw std::logic_error("plan has no prefill attention");
}

const PlanPlacement::Entry& PlanPlacement::find(model::Phase phase, std::uint64_t step, std::uint32_t layer,
                                                const std::string& op) const {
  const auto it = ops_.find(Key{phase, step, layer, op});
  if (it == ops_.end()) {
    throw std::logic_error("the plan does not run " + op + " of layer " + std::to_string(layer) + " in " +
                           (phase == model::Phase::kPrefill ? "prefill chunk " : "decode step ") + std::to_string(step));
  }
  return it->second;
}

OpPlacement PlanPlacement::at(model::Phase phase, std::uint64_t step, std::uint32_t layer, const std::string& op) const {
  return find(phase, step, layer, op).placement;
}

const model::OpDesc& PlanPlacement::op(model::Phase phase, std::uint64_t step, std::uint32_t layer, const std::string& name) const {
  return find(phase, step, layer, name).op;
}

}  // namespace socsim::functional
