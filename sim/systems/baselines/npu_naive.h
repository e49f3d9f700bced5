#pragma once
#include "sim/systems/system.h"

namespace socsim::systems {

// npu-naive: the prompt as NPU graphs built for its exact shape at request time (build and
// optimize on the critical path), per-group INT8 matmuls (accurate quantization the NPU cannot
// fuse: one sub-GEMM per group), float ops (norms, RoPE, attention, activations) on the CPU, and
// decode on the CPU (llm.npu 2.3's motivating setup).
class NpuNaive final : public System {
 public:
  std::string id() const override { return "npu-naive"; }
  void configure(config::Section& options, const hw::SocSpec& soc, const model::ModelConfig& model) override;
  runtime::Plan plan(const hw::SocSpec& soc, const model::ModelConfig& model, const RequestShape& request) override;
  double weight_bits() const override { return 8.125; }
  bool decode_windows() const override { return true; }

 private:
  std::uint32_t cpu_threads_ = 4;
};

// NPU weights must map into the NPU's address space: throws config::ConfigError naming the model,
// the bytes and the limit.
void check_npu_fits(const hw::SocSpec& soc, const model::ModelConfig& m, double bits_per_weight);

}  // namespace socsim::systems
