#include "sim/runtime/job_picker.h"

#include <stdexcept>
#include <string>

namespace socsim::runtime {

Dependents dependents_of(const Plan& plan) {
  const std::size_t n = plan.jobs.size();
  Dependents d;
  d.first_.assign(n + 1, 0);
  for (const auto& job : plan.jobs) {
    for (const auto dep : job.deps) {
      if (dep >= n) throw std::out_of_range("dependents_of: a job depends on job " + std::to_string(dep) + " of " + std::to_string(n));
      ++d.first_[dep + 1];
    }
  }
  for (std::size_t j = 0; j < n; ++j) d.first_[j + 1] += d.first_[j];
  d.list_.resize(d.first_[n]);
  std::vector<std::uint32_t> fill(d.first_.begin(), d.first_.end() - 1);
  for (std::uint32_t j = 0; j < n; ++j) {
    for (const auto dep : plan.jobs[j].deps) d.list_[fill[dep]++] = j;  // in job order, as pushed before
  }
  return d;
}

double npu_stall_score(const Plan& plan, const Dependents& dependents, std::uint32_t g,
                       const std::vector<bool>& done, const std::vector<bool>& started) {
  double unlocked = 0;
  for (const auto s : dependents.of(g)) {
    if (started[s] || done[s]) continue;
    bool ready_after_g = true;
    for (const auto d : plan.jobs[s].deps) {
      if (d != g && !done[d]) {
        ready_after_g = false;
        break;
      }
    }
    if (ready_after_g) unlocked += to_seconds(plan.jobs[s].estimate);
  }
  return plan.jobs[g].unit == kernels::Unit::kNpu ? -unlocked : unlocked;
}

std::size_t pick_job(PickPolicy policy, const Plan& plan, const Dependents& dependents,
                     const std::vector<std::uint32_t>& waiting, const std::vector<bool>& done, const std::vector<bool>& started) {
  std::size_t best = 0;
  switch (policy) {
    case PickPolicy::kArrival: return 0;
    case PickPolicy::kProgramOrder:
      for (std::size_t i = 1; i < waiting.size(); ++i) {
        if (waiting[i] < waiting[best]) best = i;
      }
      return best;
    case PickPolicy::kNpuStall: {
      double best_score = npu_stall_score(plan, dependents, waiting[0], done, started);
      for (std::size_t i = 1; i < waiting.size(); ++i) {
        const double c = npu_stall_score(plan, dependents, waiting[i], done, started);
        if (c > best_score || (c == best_score && waiting[i] < waiting[best])) best = i, best_score = c;
      }
      return best;
    }
  }
  return best;
}

}  // namespace socsim::runtime
