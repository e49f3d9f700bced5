#pragma once
// Offline profiling of jobs, as llm.npu's scheduler has it: each job's duration when it runs
// alone on an idle SoC (no dependencies, no other traffic, its NPU graph already built). Jobs
// with the same signature (job_signature below) are profiled once.
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>

#include "sim/core/signature.h"
#include "sim/core/simulator.h"
#include "sim/hw/soc.h"
#include "sim/hw/soc_spec.h"
#include "sim/model/model_config.h"
#include "sim/runtime/job.h"
#include "sim/runtime/lowering/lowering_cache.h"

namespace socsim::runtime {

class JobProfiler {
 public:
  // `shared_lowering`: a cache to lower through (the run's, System::shared_lowering()), used when
  // it was built for this very model and NPU (else the profiler lowers in a cache of its own): the
  // ops profiled are then lowered once for the profile and the run that executes them.
  JobProfiler(const hw::SocSpec& soc, const model::ModelConfig& model, lowering::LoweringCache* shared_lowering = nullptr)
      : soc_(soc),
        model_(model),
        own_lowering_(model, soc.npu),
        lowering_(shared_lowering && shared_lowering->built_for(model, soc.npu) ? *shared_lowering : own_lowering_) {}
  // Not copied or moved: lowering_ may refer to the profiler's own cache.
  JobProfiler(const JobProfiler&) = delete;
  JobProfiler& operator=(const JobProfiler&) = delete;
  // For the jobs warm_duration computes in closed form, the closed form plus the cluster's wake-up
  // (idle_wakeup before the first task, which finds the idle SoC's cluster cold; before every
  // task when idle_threshold is 0), which is what the simulation of the job gives; other jobs are
  // simulated.
  Tick duration(const Job& job);
  // Always the simulation of the job alone on an idle SoC (cached by signature): what the closed
  // forms are checked against.
  Tick simulated_duration(const Job& job);
  // The job's time on a warm core (no cluster wake-up): for a one-thread CPU job of shadowAttn's
  // sparse kinds (top-k, sparse attention, block-sparse attention, the planner) on a named
  // cluster, in closed form, each task the dispatch and then the later of its compute and its
  // DRAM stream (CpuComplex::compute_time), which is what a lone task on an idle SoC takes (a
  // test checks the two agree to the tick); for any other job, the job run twice less the job
  // run once.
  Tick warm_duration(const Job& job);
  // Both at once: `cold` is duration(), `warm` is warm_duration() (a planner that needs a job's
  // warm time and then its estimate computes the closed form once).
  struct Profile {
    Tick cold = 0;
    Tick warm = 0;
  };
  Profile profile(const Job& job);
  // Fills `estimate` of every job of the plan that has none (0: not profiled; a planner that
  // profiled a job as it built it has set it already). A plan edited after it was annotated keeps
  // its old estimates: zero the edited jobs' before annotating again.
  void annotate(Plan& plan);
  std::size_t profiled() const { return cache_.size(); }

 private:
  // shadowAttn's sparse kinds (top-k, sparse and block-sparse attention, the planner) as a
  // one-thread CPU job on a named cluster without storage reads.
  static bool has_closed_form(const Job& job);
  // Its time: each task the dispatch and then the later of its compute and its DRAM stream, plus
  // the wake-up(s) when the cluster starts cold.
  Tick closed_form(const Job& job, bool cold);
  Profile closed_forms(const Job& job);
  const hw::SocSpec& soc_;
  const model::ModelConfig& model_;
  std::unordered_map<Signature, Tick, SignatureHash> cache_;
  lowering::LoweringCache own_lowering_;
  lowering::LoweringCache& lowering_;  // shared by every profile run: each op is lowered once
  // An idle SoC for the closed form (CpuComplex::compute_time), made on first use.
  std::unique_ptr<Simulator> idle_sim_;
  std::unique_ptr<hw::Soc> idle_soc_;
};

// The profiling key: a 128-bit signature (sim/core/signature.h, as the run memos'; formatting it
// as a string per job was a share of shadowAttn's planning) of the unit, precision, threads,
// storage bytes, whether there is a graph call, the CPU engine and cluster, and every op's stem
// and shape. Op names are in it because lowering reads some (down_proj, gate_mul, rope_k,
// sample); a per-head suffix ".h<N>" (shadowAttn's top-k and sparse-attention ops) is not, since
// no lowering reads it: heads of one shape share a profile.
Signature job_signature(const Job& job);
std::string_view label_stem(std::string_view op_name);  // the name without a ".h<N>" suffix

}  // namespace socsim::runtime
