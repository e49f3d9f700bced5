#pragma once
#include "sim/systems/system.h"

namespace socsim::systems {

// gpu-only: MLC/PPL-OpenCL-like. Every op a GPU kernel (W4A16 weights, FP16 math); the host
// samples each token, so every step ends with a queue drain and a copy of the logits.
class GpuOnly final : public System {
 public:
  std::string id() const override { return "gpu-only"; }
  void configure(config::Section&, const hw::SocSpec&, const model::ModelConfig&) override {}
  runtime::Plan plan(const hw::SocSpec& soc, const model::ModelConfig& model, const RequestShape& request) override;
  double weight_bits() const override { return 4.5; }
  bool decode_windows() const override { return true; }
};

}  // namespace socsim::systems
