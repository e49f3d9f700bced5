#include "sim/systems/system.h"
#include "sim/systems/baselines/baselines.h"
#include "sim/systems/heterollm/heterollm_system.h"
#include "sim/systems/llm_npu/llm_npu_system.h"
#include "sim/systems/shadowattn/shadowattn_system.h"
#include "sim/systems/tts_npu/tts_system.h"

namespace socsim::systems {

const SystemRegistry& SystemRegistry::builtin() {
  // Built once on first use; immutable afterwards.
  static const SystemRegistry registry = [] {
    SystemRegistry r;
    register_baselines(r);
    register_llm_npu(r);
    register_heterollm(r);
    register_shadowattn(r);
    register_tts_npu(r);
    return r;
  }();
  return registry;
}

std::vector<std::string> SystemRegistry::ids() const {
  std::vector<std::string> v;
  for (const auto& [id, f] : factories_) v.push_back(id);
  return v;
}

}  // namespace socsim::systems
