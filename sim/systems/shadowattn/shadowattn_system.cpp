#include "sim/systems/shadowattn/shadowattn_system.h"

#include <algorithm>

#include "sim/config/config_error.h"
#include "sim/runtime/job_profiler.h"
#include "sim/systems/llm_npu/chunk_dag.h"
#include "sim/systems/llm_npu/cpu_decode.h"
#include "sim/systems/llm_npu/outlier_plan.h"
#include "sim/systems/memory_fit.h"
#include "sim/systems/shadowattn/attention_builder.h"
#include "sim/systems/shadowattn/calibration.h"
#include "sim/systems/shadowattn/importance_source.h"
#include "sim/systems/shadowattn/plan_reserve.h"

namespace socsim::systems {

namespace {

using model::OpKind;
using runtime::Job;
using runtime::Plan;

// A QxK graph holds no weights: about 10-100 KB (paper); we count 64 KiB per graph.
constexpr double kQkGraphBytes = 64.0 * 1024;

}  // namespace

const char* attention_variant_id(AttentionVariant v) {
  switch (v) {
    case AttentionVariant::kCgFull: return "cg-full";
    case AttentionVariant::kCgSparse: return "cg-sparse";
    case AttentionVariant::kCgBlockSparse: return "cg-block-sparse";
    case AttentionVariant::kNpuFull: return "npu-full";
    case AttentionVariant::kShadow: return "shadowattn";
  }
  return "?";
}

void ShadowAttnSystem::configure(config::Section& options, const hw::SocSpec& soc, const model::ModelConfig& m) {
  require_npu(soc, id());
  options_ = shadowattn::read_options(options, soc);
  reject_options_without_effect(options);
  host_ = llm_npu::read_options(options, soc, &m);
  if (!options_.cpu_cluster_little && !host_.float_on_gpu) {
    // The host's float lane keeps off the budget's cores (co-running work kept off that core).
    host_.cpu_threads = std::max<std::uint32_t>(1, host_.cpu_threads > options_.cpu_cores ? host_.cpu_threads - options_.cpu_cores : 1);
  }
  placement_ = llm_npu::place_on_npu(m, soc.npu.address_space_bytes, soc.npu.max_sessions);
  shadow_kept_ = llm_npu::shadow_layers(m.layers, host_.outlier_prune);
  importance_info_ = {{"source", "synthetic"}};
  // Only shadowAttn sizes its heads' top-k by importance; the baselines keep the seeded scores.
  const shadowattn::Importance imp = variant_ == AttentionVariant::kShadow
                                         ? shadowattn::resolve_importance(options_, m, importance_info_)
                                         : shadowattn::synthetic_importance(options_.seed, m.layers, m.heads);
  ratios_ = shadowattn::head_ratios(imp.head, imp.layer, m.heads, options_.sparsity, options_.importance_clamp);
}

runtime::SyncPolicy ShadowAttnSystem::sync_policy() const {
  runtime::SyncPolicy s;
  s.shared_buffers = true;
  return s;
}

Plan ShadowAttnSystem::plan(const hw::SocSpec& soc, const model::ModelConfig& m, const RequestShape& r) {
  Plan host;
  if (r.decode_only) {  // a window of a long decode: CPU decode steps only, as llm.npu
    llm_npu::append_cpu_decode(host, host_, m, r, 0);
    return host;
  }
  const auto dag = llm_npu::build_prefill_dag(host, host_, m, placement_, llm_npu::planned_shadow_layers(data_, shadow_kept_, host_.outlier_prune),
                                              r.prompt, r.batch, data_);
  runtime::JobProfiler profiler(soc, m, shared_lowering());
  shadowattn::AttentionStats stats;
  shadowattn::AttentionBuilder builder(variant_, options_, host_, m, soc, ratios_, profiler, stats, data_);

  // The host's jobs in order, each float subgraph holding a layer's attention cut around it.
  Plan plan;
  shadowattn::reserve_plan_jobs(plan, host, variant_, options_, m, llm_npu::cpu_decode_jobs(host_, m, r));
  std::vector<std::uint32_t> map(host.jobs.size());
  const auto remap = [&map](std::vector<std::uint32_t>& v) {
    for (auto& d : v) d = map[d];
  };
  // The host's plan is not used after this loop: its jobs are moved, not copied (a job's ops
  // are most of it, and copying each job three times was a tenth of a run).
  for (std::uint32_t j = 0; j < host.jobs.size(); ++j) {
    Job job = std::move(host.jobs[j]);
    remap(job.deps);
    remap(job.start_deps);
    const auto it = std::find_if(job.ops.begin(), job.ops.end(), [](const model::GraphOp& g) { return g.op.kind == OpKind::kAttnScores; });
    if (it == job.ops.end() || job.unit == kernels::Unit::kNpu) {
      map[j] = plan.add(std::move(job));
      continue;
    }
    const auto first = static_cast<std::size_t>(it - job.ops.begin());
    std::size_t last = first;
    while (last < job.ops.size() && job.ops[last].op.kind != OpKind::kAttnContext) ++last;
    const std::vector<model::GraphOp> ops = std::move(job.ops);  // the job's other fields are copied twice, its ops once
    const auto op_at = [&ops](std::size_t i) { return ops.begin() + static_cast<std::ptrdiff_t>(i); };
    const std::vector<model::GraphOp> attn(op_at(first), op_at(last + 1));
    const std::uint32_t layer = attn.front().layer;
    const std::uint64_t chunk = attn.front().step;
    Job pre = job, post = std::move(job);
    pre.ops.assign(ops.begin(), op_at(first));
    post.ops.assign(op_at(last + 1), ops.end());
    pre.name += ".pre";
    post.deps.clear();
    post.start_deps.clear();
    // No ops before the scores when the host gave the keys a job of their own (chunk_dag.cpp).
    const std::vector<std::uint32_t> before = first > 0 ? std::vector<std::uint32_t>{plan.add(std::move(pre))} : pre.deps;
    auto finals = builder.build(plan, before, attn, layer, chunk);
    post.deps = finals;
    map[j] = plan.add(std::move(post));
  }
  plan.report_attention = true;
  // The budget's cores are pinned to its work (the paper's runtime pins its attention threads):
  // the host's work sent to the fastest cores keeps off them, whichever cluster ranks first.
  // Asking for fewer threads (configure) kept it off only while those threads spanned two clusters.
  if (std::any_of(plan.jobs.begin(), plan.jobs.end(), [this](const Job& j) { return j.cpu_cluster == options_.cpu_cluster; })) {
    plan.cpu_pins = {{options_.cpu_cluster, options_.cpu_cores}};
  }
  if (host_.prepared) {
    plan.prepared_graphs = dag.npu_graphs;
    // Attention graphs are precompiled offline, except shadowAttn's without buckets (one graph per
    // head's own scales, built online).
    for (const auto& g : stats.graphs) {
      if (g.rfind("shadowattn/online/", 0) != 0) plan.prepared_graphs.push_back(g);
    }
  }
  if (host_.ooe) {
    profiler.annotate(plan);
    plan.pick = runtime::PickPolicy::kNpuStall;
  } else {
    plan.pick = runtime::PickPolicy::kProgramOrder;
  }

  // The first token, then decode on the CPU as llm.npu (full attention).
  llm_npu::append_cpu_decode(plan, host_, m, r, map[dag.last]);

  nlohmann::ordered_json info = {
      {"attention", attention_variant_id(variant_)},
      {"chunk", host_.chunk},
      {"chunks", dag.chunks},
      {"cpu_budget", {{"core_class", options_.core_class}, {"cluster", options_.cpu_cluster}, {"cores", options_.cpu_cores}}},
      {"host_float_threads", host_.cpu_threads},
      {"float_unit", options_.float_on_gpu ? "gpu" : "cpu"},
      {"topk_unit", options_.topk_on_gpu ? "gpu" : "cpu"},
      {"attention_npu_graphs", stats.graphs.size()},
      {"attention_graph_memory_kib", static_cast<double>(stats.graphs.size()) * kQkGraphBytes / 1024.0},
  };
  if (variant_ != AttentionVariant::kCgFull && variant_ != AttentionVariant::kNpuFull) info["sparsity"] = options_.sparsity;
  if (variant_ == AttentionVariant::kShadow || variant_ == AttentionVariant::kNpuFull) info["graph_io"] = options_.client_io ? "client" : "shared";
  if (variant_ == AttentionVariant::kShadow) {
    const auto [mn, mx] = std::minmax_element(ratios_.begin(), ratios_.end());
    double mean = 0;
    for (double x : ratios_) mean += x;
    mean /= static_cast<double>(ratios_.size());
    info["pipeline"] = options_.pipeline;
    info["fuse"] = options_.fuse;
    info["reorder"] = options_.reorder;
    info["buckets_enabled"] = options_.buckets_enabled;
    info["buckets"] = options_.buckets;
    info["step"] = options_.step;
    info["scale_spread"] = options_.scale_spread;
    info["scale_centre"] = options_.oracle_scale_centre ? "oracle" : "calibrated";
    info["per_head_ratio"] = options_.per_head_ratio;
    info["importance"] = importance_info_;
    info["head_ratio"] = {{"min", options_.per_head_ratio ? *mn : options_.sparsity},
                          {"mean", options_.per_head_ratio ? mean : options_.sparsity},
                          {"max", options_.per_head_ratio ? *mx : options_.sparsity}};
    info["estimation_launches"] = stats.launches;
    info["heads_per_launch"] = stats.launches ? static_cast<double>(stats.heads) / static_cast<double>(stats.launches) : 0.0;
    info["topk_lane"] = options_.topk_on_gpu    ? (options_.float_on_gpu ? "gpu queue, shared with sparse attention" : "gpu (sparse attention on the cpu budget)")
                        : options_.float_on_gpu ? "cpu budget (sparse attention on the gpu)"
                        : options_.cpu_cores >= 2 ? "own core"
                                                  : "shared with sparse attention (one core)";
    info["planned_pipeline_ms"] = stats.planned_ms;
    info["in_order_pipeline_ms"] = stats.in_order_ms;
    if (stats.plan_jobs) {
      info["planner"] = {{"kind", options_.planner == shadowattn::PlannerKind::kPaper ? "paper" : "best"},
                         {"ops_per_evaluation", shadowattn::kPlanOpsPerEvaluation},
                         {"evaluations_per_layer", static_cast<double>(stats.plan_evaluations) / static_cast<double>(stats.plan_jobs)},
                         {"cpu_ms_per_layer", stats.plan_ms / static_cast<double>(stats.plan_jobs)},
                         {"plans", stats.plan_jobs}};
    }
  }
  plan.info = info;
  return plan;
}

void register_shadowattn(SystemRegistry& r) {
  for (auto v : {AttentionVariant::kCgFull, AttentionVariant::kCgSparse, AttentionVariant::kCgBlockSparse, AttentionVariant::kNpuFull,
                 AttentionVariant::kShadow}) {
    r.add(attention_variant_id(v), [v] { return std::make_unique<ShadowAttnSystem>(v); });
  }
}

}  // namespace socsim::systems
