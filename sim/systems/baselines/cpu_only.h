#pragma once
#include "sim/config/config_error.h"
#include "sim/systems/system.h"

namespace socsim::systems {

class CpuOnly final : public System {
 public:
  std::string id() const override { return "cpu-only"; }
  void configure(config::Section& options, const hw::SocSpec& soc, const model::ModelConfig& model) override;
  runtime::Plan plan(const hw::SocSpec& soc, const model::ModelConfig& model, const RequestShape& request) override;
  double weight_bits() const override { return 4.5; }
  bool decode_windows() const override { return true; }

 private:
  std::uint32_t threads_ = 1;
  runtime::CpuEngine engine_ = runtime::CpuEngine::kLlamaCpp;
};

}  // namespace socsim::systems
