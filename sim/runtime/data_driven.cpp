#include "sim/runtime/data_driven.h"

#include <algorithm>
#include <stdexcept>

namespace socsim::runtime {

std::vector<std::uint64_t> DataDriven::active_per_step() const {
  const std::uint64_t steps = decode_steps.empty() ? 0 : *std::max_element(decode_steps.begin(), decode_steps.end());
  std::vector<std::uint64_t> active(steps, 0);
  for (const std::uint64_t n : decode_steps) {
    for (std::uint64_t s = 0; s < n; ++s) ++active[s];
  }
  return active;
}

void DataDriven::apply(Plan& plan) const {
  std::size_t applied = 0;
  for (auto& job : plan.jobs) {
    const auto it = shadow_jobs.find(job.name);
    if (it == shadow_jobs.end()) continue;
    if (job.ops.size() != 1 || job.ops.front().op.kind != model::OpKind::kMatMul) {
      throw std::logic_error("data-driven outliers name job '" + job.name + "', which is not one shadow matmul");
    }
    auto& op = job.ops.front().op;
    if (it->second.channels == 0) {
      job.ops.clear();  // no outlier in this chunk: the shadow has nothing to compute or read
      job.storage_read_bytes = 0;
    } else {
      op.k = it->second.channels;
      op.weight_params = op.k * op.n;
      job.storage_read_bytes = it->second.cold_channels * op.n;
    }
    ++applied;
  }
  if (applied != shadow_jobs.size()) {
    throw std::logic_error("data-driven outliers for " + std::to_string(shadow_jobs.size()) + " shadow jobs, the plan has " +
                           std::to_string(applied) + " of them");
  }
}

}  // namespace socsim::runtime
