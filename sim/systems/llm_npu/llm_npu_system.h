#pragma once
// llm-npu: llm.npu (../shared/papers/llm-npu.md) on the shared engine and kernels.
//   prompt level  chunk-sharing static graphs (chunk_dag.h, graph_memory.h)
//   tensor level  W8A8 per-tensor NPU matmuls with shadow outliers on the float unit, hot rows
//                 resident, cold rows from storage, layer pruning (outlier_plan.h); or per-group
//                 INT8 NPU matmuls without the shadow path
//   block level   out-of-order subgraphs, the NPU-stall picker over offline-profiled times
//                 (runtime PickPolicy::kNpuStall, job_profiler.h)
// Float ops on the CPU (or GPU: llm_npu.float_unit), decode on the CPU with the INT8 weights,
// weights beyond the NPU's address space placed FFN-first (npu_placement.h).
#include "sim/systems/llm_npu/llm_npu_options.h"
#include "sim/systems/llm_npu/npu_placement.h"
#include "sim/systems/system.h"

namespace socsim::systems {

class LlmNpu final : public System {
 public:
  std::string id() const override { return "llm-npu"; }
  void configure(config::Section& options, const hw::SocSpec& soc, const model::ModelConfig& model) override;
  runtime::Plan plan(const hw::SocSpec& soc, const model::ModelConfig& model, const RequestShape& request) override;
  double weight_bits() const override { return 8.0; }
  bool decode_windows() const override { return true; }
  runtime::SyncPolicy sync_policy() const override;
  // Functional mode's measured layer importance picks the layers whose outliers are kept.
  void use_data(const runtime::DataDriven* data) override { data_ = data; }

 private:
  llm_npu::Options options_;
  llm_npu::NpuPlacement placement_;
  std::vector<bool> shadow_kept_;  // from the modelled importance table
  const runtime::DataDriven* data_ = nullptr;
};

void register_llm_npu(SystemRegistry& r);

}  // namespace socsim::systems
