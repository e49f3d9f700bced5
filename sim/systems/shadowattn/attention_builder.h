#pragma once
// shadowAttn's attention of one (prefill chunk, layer) as plan jobs, per variant (cg-full,
// cg-sparse, cg-block-sparse, npu-full, shadowattn: shadowattn_system.h). For shadowattn: the
// heads' scale buckets (drawn, or measured in functional mode) and ratios, the fused estimation
// launches on the NPU, per-head top-k and sparse attention on the CPU budget (or the GPU), in the
// pipeline planner's order (pipeline_planner.h), the online planner's own work a CPU job first.
#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "sim/hw/soc_spec.h"
#include "sim/model/model_config.h"
#include "sim/runtime/data_driven.h"
#include "sim/runtime/job.h"
#include "sim/runtime/job_profiler.h"
#include "sim/systems/llm_npu/llm_npu_options.h"
#include "sim/systems/shadowattn/shadowattn_options.h"
#include "sim/systems/shadowattn/shadowattn_system.h"

namespace socsim::systems::shadowattn {

// The online planner's cost per evaluation (a head placed on the lane model, pipeline_planner.h):
// copy three lane times, two max, two adds, a compare and the loop's index and bounds work, about
// 16 scalar instructions, charged at one per cycle of the budget core's clock (the loop-carried
// max/add chain is what limits it, not the vector units). An assumption, not a measurement.
constexpr std::uint64_t kPlanOpsPerEvaluation = 16;

// What the builder made, summed over a plan's (chunk, layer)s (the system's report).
struct AttentionStats {
  std::set<std::string> graphs;  // distinct NPU attention graphs
  std::uint64_t launches = 0, heads = 0;
  double planned_ms = 0, in_order_ms = 0;
  std::uint64_t plan_jobs = 0, plan_evaluations = 0;
  double plan_ms = 0;  // the planner's CPU time, summed over (chunk, layer)
};

// Builds the attention of one (chunk, layer) after job `pre`; returns the jobs the rest of the
// layer waits for. Holds references: everything passed must outlive it.
class AttentionBuilder {
 public:
  AttentionBuilder(AttentionVariant v, const Options& o, const llm_npu::Options& host, const model::ModelConfig& m, const hw::SocSpec& soc,
                   const std::vector<double>& ratios, runtime::JobProfiler& profiler, AttentionStats& stats, const runtime::DataDriven* data)
      : v_(v), o_(o), host_(host), m_(m), soc_(soc), ratios_(ratios), profiler_(profiler), stats_(stats), data_(data) {}

  std::vector<std::uint32_t> build(runtime::Plan& plan, const std::vector<std::uint32_t>& pre, const std::vector<model::GraphOp>& attn,
                                   std::uint32_t layer, std::uint64_t chunk);

 private:
  model::OpDesc topk_op(const model::OpDesc& s, std::uint64_t heads, double ratio) const;
  model::OpDesc sparse_op(const model::OpDesc& s, std::uint64_t heads, double ratio) const;
  runtime::Job cpu_job(std::string name, std::uint32_t threads = 0) const;
  runtime::Job float_job(std::string name, std::uint32_t threads = 0) const;
  // Top-k on the CPU budget, or on the GPU's queue beside the float attention (topk_unit=gpu).
  runtime::Job topk_job(std::string name, std::uint32_t threads = 0) const;
  runtime::Job npu_job(std::string name) const;
  // A CPU job's time on a warm core (JobProfiler::warm_duration: no wake-up of the idle SoC's
  // cluster). A plan that will be annotated (out-of-order picking) gets the job's estimate from the
  // same profile, so annotate() does not profile each top-k and sparse job per head again.
  double warm_ms(runtime::Job& j) const;
  static std::uint32_t add(runtime::Plan& plan, runtime::Job&& j, const std::vector<std::uint32_t>& deps);
  std::vector<std::uint32_t> shadow(runtime::Plan& plan, const std::vector<std::uint32_t>& pre, const model::GraphOp& scores,
                                    std::uint32_t layer, std::uint64_t chunk, const std::string& base);

  AttentionVariant v_;
  const Options& o_;
  const llm_npu::Options& host_;
  const model::ModelConfig& m_;
  const hw::SocSpec& soc_;
  const std::vector<double>& ratios_;
  runtime::JobProfiler& profiler_;
  AttentionStats& stats_;
  const runtime::DataDriven* data_;  // measured head buckets (functional mode), else nullptr
};

}  // namespace socsim::systems::shadowattn
