#include "sim/runtime/job_profiler.h"

#include <algorithm>

#include "sim/hw/soc.h"
#include "sim/runtime/executor.h"
#include "sim/runtime/lowering/sparse_attention_lowering.h"
#include "sim/runtime/watchdog_report.h"

namespace socsim::runtime {

Signature job_signature(const Job& job) {
  SignatureBuilder s;
  s.add(static_cast<std::uint64_t>(job.unit));
  s.add(static_cast<std::uint64_t>(job.precision));
  s.add(static_cast<std::uint64_t>(job.cpu_threads));
  s.add(job.storage_read_bytes);
  s.add(static_cast<std::uint64_t>(job.npu_graph.empty() ? 0 : 1));
  s.add(static_cast<std::uint64_t>(job.npu_client_io));
  s.add(static_cast<std::uint64_t>(job.cpu_engine));
  s.add(std::string_view(job.cpu_cluster));
  // The NPU kernels its ops lower with (the old string signature left them out: two jobs alike
  // but for their kernels shared one profile).
  const NpuKernelChoice& k = job.npu_kernels;
  s.add(static_cast<std::uint64_t>(k.hmx_gemv)), s.add(static_cast<std::uint64_t>(k.w4a16));
  s.add(static_cast<std::uint64_t>(k.dequant)), s.add(static_cast<std::uint64_t>(k.q8_0_down));
  s.add(static_cast<std::uint64_t>(k.prefetch_weights)), s.add(static_cast<std::uint64_t>(k.exp));
  s.add(static_cast<std::uint64_t>(k.graph_layout));
  s.add(static_cast<std::uint64_t>(job.ops.size()));
  for (const auto& g : job.ops) {
    const auto& o = g.op;
    s.add(label_stem(o.name));
    s.add(static_cast<std::uint64_t>(o.kind));
    s.add(o.m), s.add(o.k), s.add(o.n), s.add(o.batch), s.add(o.elements), s.add(o.weight_params);
  }
  return s.key();
}

std::string_view label_stem(std::string_view name) {
  // Most names end in a letter: no suffix to look for (this runs per op lookup).
  if (name.empty() || name.back() < '0' || name.back() > '9') return name;
  const auto dot = name.rfind(".h");
  if (dot == std::string_view::npos || dot + 2 == name.size()) return name;
  if (name.find_first_not_of("0123456789", dot + 2) != std::string_view::npos) return name;
  return name.substr(0, dot);
}

Tick JobProfiler::duration(const Job& job) {
  // No signature string, no cache lookup: shadowAttn's plans annotate a top-k and a sparse job
  // per head, layer and chunk, thousands of distinct shapes (per-head ratios, growing contexts),
  // and simulating each one alone dominated planning (#21).
  if (has_closed_form(job)) return closed_form(job, true);
  return simulated_duration(job);
}

Tick JobProfiler::simulated_duration(const Job& job) {
  const Signature key = job_signature(job);
  if (const auto it = cache_.find(key); it != cache_.end()) return it->second;
  Simulator sim;
  hw::Soc soc(sim, soc_, nullptr);
  Plan one;
  Job j = job;
  j.deps.clear();
  j.start_deps.clear();
  j.lane.clear();
  if (!j.npu_graph.empty()) one.prepared_graphs.push_back(j.npu_graph);
  one.add(std::move(j));
  // A run's cache (shared) is bounded by the run's executor after its plan ran; the profiler's
  // own by its one-job runs.
  Executor ex(soc, model_, {}, nullptr, &lowering_, &lowering_ == &own_lowering_);
  sim.spawn(ex.run(one), "profile");
  check_run_finished(sim.run(), sim, soc, &ex);
  cache_.emplace(key, sim.now());
  return sim.now();
}

bool JobProfiler::has_closed_form(const Job& job) {
  // One thread only: several split the bytes unevenly (the first bytes % threads one byte more)
  // and the fair shares change as their streams end, which the closed form does not follow.
  return job.unit == kernels::Unit::kCpu && !job.cpu_cluster.empty() && job.storage_read_bytes == 0 && job.cpu_threads == 1 &&
         std::all_of(job.ops.begin(), job.ops.end(), [](const model::GraphOp& g) { return lowering::is_sparse_attention_op(g.op.kind); });
}

Tick JobProfiler::closed_form(const Job& job, bool cold) {
  const Profile p = closed_forms(job);
  return cold ? p.cold : p.warm;
}

JobProfiler::Profile JobProfiler::closed_forms(const Job& job) {
  if (!idle_soc_) {
    idle_sim_ = std::make_unique<Simulator>();
    idle_soc_ = std::make_unique<hw::Soc>(*idle_sim_, soc_, nullptr);
  }
  Tick t = 0;
  std::uint64_t tasks = 0;
  for (const auto& g : job.ops) {
    const kernels::CpuWork& work = lowering_.cpu(g.op, job.precision, job.cpu_threads, nullptr, job.cpu_engine);
    for (const auto& task : work.tasks) t += idle_soc_->cpu().compute_time(task, job.cpu_cluster, work.threads);
    tasks += work.tasks.size();
  }
  // The idle SoC's cluster has never been busy: its first task is cold. Between two tasks of the
  // job the cores are released and claimed again at the same instant, idle for 0, which is cold
  // only when idle_threshold is 0 (CpuCluster::idle_for_at_least).
  const Tick wakeups = tasks == 0 ? 0 : soc_.cpu.idle_wakeup * (soc_.cpu.idle_threshold == 0 ? tasks : 1);
  return {t + wakeups, t};
}

JobProfiler::Profile JobProfiler::profile(const Job& job) {
  if (has_closed_form(job)) return closed_forms(job);
  return {simulated_duration(job), warm_duration(job)};
}

Tick JobProfiler::warm_duration(const Job& job) {
  if (has_closed_form(job)) return closed_form(job, false);
  Job twice = job;
  twice.ops.insert(twice.ops.end(), job.ops.begin(), job.ops.end());
  return simulated_duration(twice) - simulated_duration(job);
}

void JobProfiler::annotate(Plan& plan) {
  for (auto& job : plan.jobs) {
    if (job.estimate == 0) job.estimate = duration(job);
  }
}

}  // namespace socsim::runtime
