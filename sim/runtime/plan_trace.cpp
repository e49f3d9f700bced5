#include "sim/runtime/plan_trace.h"

#include <algorithm>
#include <map>
#include <numeric>

namespace socsim::runtime {

void record_plan_trace(const Plan& plan, const Executor& ex, report::TraceRecorder& trace) {
  // No report asked for: nothing would be kept (the track and flow names cost a share of a run).
  if (!trace.on()) return;
  const std::size_t n = plan.jobs.size();
  std::vector<std::uint32_t> by_start(n);
  std::iota(by_start.begin(), by_start.end(), 0u);
  std::stable_sort(by_start.begin(), by_start.end(), [&](auto a, auto b) { return ex.job_start(a) < ex.job_start(b); });
  // Interval partitioning per unit, greedy by start time: first track free at the job's start.
  std::map<std::string, std::vector<Tick>> track_free;  // unit -> end of the last slice per track
  std::vector<std::string> track(n);
  for (const auto j : by_start) {
    const std::string unit = unit_name(plan.jobs[j].unit);
    auto& free = track_free[unit];
    std::size_t k = 0;
    while (k < free.size() && free[k] > ex.job_start(j)) ++k;
    if (k == free.size()) free.push_back(0);
    free[k] = ex.job_end(j);
    track[j] = unit + ".jobs" + (k == 0 ? "" : "." + std::to_string(k));
  }
  for (std::uint32_t j = 0; j < n; ++j) {
    const Job& job = plan.jobs[j];
    trace.span(track[j], job.name, ex.job_start(j), ex.job_end(j));
    if (ex.job_ready(j) > ex.job_start(j)) trace.span(track[j], "sync", ex.job_start(j), ex.job_ready(j));
    for (const auto d : job.deps) {
      if (plan.jobs[d].unit == job.unit) continue;
      // The arrow leaves the producer's slice just before its end (an endpoint must lie inside
      // the slice it binds to) and enters the consumer's at its start.
      const Tick from = std::max(ex.job_start(d), ex.job_end(d) - std::min<Tick>(ex.job_end(d), kNanosecond));
      trace.flow(track[d], from, track[j], ex.job_start(j), std::string(unit_name(plan.jobs[d].unit)) + "->" + unit_name(job.unit));
    }
  }
}

}  // namespace socsim::runtime
