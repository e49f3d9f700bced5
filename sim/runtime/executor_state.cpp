// Executor::describe_state: what every unit's jobs are doing, for the watchdog's report when a
// run stops making progress (sim/runtime/watchdog_report.h).
#include <fmt/format.h>

#include "sim/runtime/executor.h"

namespace socsim::runtime {

std::string Executor::describe_state(std::size_t max_jobs_per_unit) const {
  if (!plan_) return "  (no plan started)\n";
  const Plan& plan = *plan_;
  std::string s;
  std::size_t done = 0;
  for (std::size_t i = 0; i < plan.jobs.size(); ++i) done += done_flags_[i] ? 1 : 0;
  s += fmt::format("  jobs: {} of {} done\n", done, plan.jobs.size());
  for (kernels::Unit u : {kernels::Unit::kNpu, kernels::Unit::kGpu, kernels::Unit::kCpu}) {
    std::vector<std::string> running, lane_wait, dep_wait;
    for (std::uint32_t i = 0; i < plan.jobs.size(); ++i) {
      const Job& job = plan.jobs[i];
      if (job.unit != u || done_flags_[i]) continue;
      if (began_flags_[i]) {
        running.push_back(fmt::format("'{}' (ops since {} ps)", job.name, ready_[i]));
      } else if (started_[i]) {
        lane_wait.push_back(job.lane.empty() ? fmt::format("'{}' (in its hand-over)", job.name)
                                             : fmt::format("'{}' (for lane '{}')", job.name, job.lane));
      } else {
        std::string unmet;
        for (auto d : job.deps) {
          if (!done_flags_[d]) {
            unmet = fmt::format("'{}' to finish", plan.jobs[d].name);
            break;
          }
        }
        for (auto d : job.start_deps) {
          if (unmet.empty() && !began_flags_[d]) unmet = fmt::format("'{}' to begin", plan.jobs[d].name);
        }
        dep_wait.push_back(fmt::format("'{}' (for {})", job.name, unmet.empty() ? "its turn" : unmet));
      }
    }
    auto list = [max_jobs_per_unit](const std::vector<std::string>& v) {
      std::string out;
      for (std::size_t i = 0; i < v.size() && i < max_jobs_per_unit; ++i) out += (i ? ", " : "") + v[i];
      if (v.size() > max_jobs_per_unit) out += fmt::format(", ... {} more", v.size() - max_jobs_per_unit);
      return out.empty() ? std::string("none") : out;
    };
    s += fmt::format("  {} jobs: running {}; waiting for a lane/hand-over {}; waiting for dependencies {}\n", unit_name(u),
                     list(running), list(lane_wait), list(dep_wait));
  }
  return s;
}

}  // namespace socsim::runtime
