#include "sim/systems/llm_npu/llm_npu_system.h"

#include <algorithm>

#include "sim/runtime/job_profiler.h"
#include "sim/systems/llm_npu/chunk_dag.h"
#include "sim/systems/llm_npu/graph_memory.h"
#include "sim/systems/llm_npu/outlier_plan.h"
#include "sim/systems/llm_npu/cpu_decode.h"
#include "sim/systems/memory_fit.h"

namespace socsim::systems {

void LlmNpu::configure(config::Section& options, const hw::SocSpec& soc, const model::ModelConfig& m) {
  require_npu(soc, id());
  options_ = llm_npu::read_options(options, soc, &m);
  placement_ = llm_npu::place_on_npu(m, soc.npu.address_space_bytes, soc.npu.max_sessions);
  shadow_kept_ = llm_npu::shadow_layers(m.layers, options_.outlier_prune);
}

runtime::SyncPolicy LlmNpu::sync_policy() const {
  // CPU and NPU exchange activations through shared buffers (llm.npu 4).
  runtime::SyncPolicy s;
  s.shared_buffers = true;
  return s;
}

runtime::Plan LlmNpu::plan(const hw::SocSpec& soc, const model::ModelConfig& m, const RequestShape& r) {
  runtime::Plan plan;
  if (r.decode_only) {
    // A window of a long decode: CPU decode steps only (the prefill ran in the first window).
    llm_npu::append_cpu_decode(plan, options_, m, r, 0);
    return plan;
  }
  const std::vector<bool> shadow_kept = llm_npu::planned_shadow_layers(data_, shadow_kept_, options_.outlier_prune);
  const auto dag = llm_npu::build_prefill_dag(plan, options_, m, placement_, shadow_kept, r.prompt, r.batch, data_);
  if (options_.prepared) plan.prepared_graphs = dag.npu_graphs;
  if (options_.ooe) {
    // The picker needs T(g) for every subgraph: profiled offline, as the paper does.
    runtime::JobProfiler profiler(soc, m, shared_lowering());
    profiler.annotate(plan);
    plan.pick = runtime::PickPolicy::kNpuStall;
  } else {
    plan.pick = runtime::PickPolicy::kProgramOrder;
  }

  // The first token, then decode on the CPU backend with the INT8 weights.
  llm_npu::append_cpu_decode(plan, options_, m, r, dag.last);

  const auto mem = llm_npu::graph_memory(plan, soc.npu);
  const auto kept = static_cast<std::uint64_t>(std::count(shadow_kept.begin(), shadow_kept.end(), true));
  const double mib = 1024.0 * 1024.0;
  plan.info = {
      {"chunk", options_.chunk},
      {"chunks", dag.chunks},
      {"subgraphs_per_chunk", dag.subgraphs_per_chunk},
      {"npu_subgraphs_per_chunk", dag.npu_subgraphs_per_chunk},
      {"static_npu_graphs", dag.npu_graphs.size()},
      {"npu_graph_memory_mib", {{"shared", static_cast<double>(mem.shared_bytes()) / mib},
                                {"unshared", static_cast<double>(mem.unshared_bytes(dag.chunks)) / mib},
                                {"weights", static_cast<double>(mem.weight_bytes) / mib},
                                {"buffers", static_cast<double>(mem.buffer_bytes) / mib}}},
      {"shadow_outliers", options_.shadow_outliers},
      {"activation_scale", options_.minmax_scale ? "minmax" : "offline"},
      {"shadow_layers", options_.shadow_outliers && !options_.minmax_scale ? kept : 0},
      {"shadow_jobs", dag.shadow_jobs},
      {"outlier_channels", options_.outlier_channels},
      {"hot_channels", options_.hot_channels},
      {"hot_hit", options_.hot_hit},
      {"hot_outlier_weights_mib",
       options_.shadow_outliers ? static_cast<double>(llm_npu::hot_weight_bytes(options_, m, shadow_kept)) / mib : 0.0},
      {"ooe", options_.ooe},
      {"npu_activation_layout", kernels::graph_activation_layout_name(options_.equivalent_shapes ? kernels::GraphActivationLayout::kEquivalentShape
                                                                                                 : kernels::GraphActivationLayout::kTokensAsHeight)},
      {"float_unit", options_.float_on_gpu ? "gpu" : "cpu"},
      {"cpu_float", options_.cpu_fp16 ? "fp16" : "fp32"},
      {"npu_weight_mib", static_cast<double>(placement_.npu_weight_bytes) / mib},
      {"cpu_weight_mib", static_cast<double>(placement_.cpu_weight_bytes) / mib},
      {"all_layers_on_npu", placement_.all_on_npu()},
      {"npu_sessions", placement_.sessions},
  };
  return plan;
}

void register_llm_npu(SystemRegistry& r) {
  r.add("llm-npu", [] { return std::make_unique<LlmNpu>(); });
}

}  // namespace socsim::systems
