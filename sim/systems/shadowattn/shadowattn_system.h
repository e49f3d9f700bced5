#pragma once
// shadowattn (../shared/papers/shadowattn.md) and its baselines: llm.npu's chunked NPU prefill
// (sim/systems/llm_npu/, its options apply) with each prefill layer's attention replaced:
//   cg-full          dense FP32 attention on the CPU budget (or the GPU: shadowattn.float_unit)
//   cg-sparse        dense FP32 estimation Q.K^T on the budget, top-k per row, sparse attention
//   cg-block-sparse  block-sparse attention (64x64 pooled estimation, blocks kept at the ratio)
//   npu-full         dense INT8 attention in a static NPU graph (per-tensor scales)
//   shadowattn       per head: INT8 Q.K^T estimation on the NPU (heads sharing a scale bucket
//                    fused in one launch of a precompiled graph), top-k per row on the CPU
//                    budget (causal positions skipped), FP32 sparse attention over the kept keys;
//                    heads pipelined across the NPU and CPU lanes in the greedy planner's order
//                    (pipeline_planner.h), the planner's own work charged as a CPU job on the
//                    budget core before the layer's first launch; per-head ratios and buckets
//                    from calibration.h (importance: importance_calibration.h when calibrated).
// The CPU budget is shadowattn.cpu_cores cores of shadowattn.core_class (one mid core); the
// host's own float lane (norms, RoPE, ...) keeps llm.npu's cores minus the budget's. Decode as
// llm.npu: on the CPU, full attention. Jobs of the attention module are reported as
// attention_ms / attention_energy_j (prefill attention: pre-processing like RoPE stays the host's).
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/systems/llm_npu/llm_npu_options.h"
#include "sim/systems/llm_npu/npu_placement.h"
#include "sim/systems/shadowattn/shadowattn_options.h"
#include "sim/systems/system.h"

namespace socsim::systems {

enum class AttentionVariant { kCgFull, kCgSparse, kCgBlockSparse, kNpuFull, kShadow };
const char* attention_variant_id(AttentionVariant v);

class ShadowAttnSystem final : public System {
 public:
  explicit ShadowAttnSystem(AttentionVariant v) : variant_(v) {}
  std::string id() const override { return attention_variant_id(variant_); }
  void configure(config::Section& options, const hw::SocSpec& soc, const model::ModelConfig& model) override;
  // Throws config::ConfigError for an option that would change nothing here (shadowattn_option_checks.cpp).
  void reject_options_without_effect(config::Section& options) const;
  runtime::Plan plan(const hw::SocSpec& soc, const model::ModelConfig& model, const RequestShape& request) override;
  double weight_bits() const override { return 8.0; }
  bool decode_windows() const override { return true; }
  std::vector<InputFile> input_files() const override {
    if (options_.importance_file.empty()) return {};
    return {{"shadowattn.importance_file", options_.importance_file}};
  }
  runtime::SyncPolicy sync_policy() const override;
  // Functional mode's measured head buckets replace the drawn scales' (fused launches follow).
  void use_data(const runtime::DataDriven* data) override { data_ = data; }

 private:
  const runtime::DataDriven* data_ = nullptr;
  AttentionVariant variant_;
  llm_npu::Options host_;
  llm_npu::NpuPlacement placement_;
  std::vector<bool> shadow_kept_;
  shadowattn::Options options_;
  std::vector<double> ratios_;  // per (layer, head): layer * heads + head
  nlohmann::ordered_json importance_info_;  // where ratios_ came from (system_info.importance)
};

void register_shadowattn(SystemRegistry& r);

}  // namespace socsim::systems
