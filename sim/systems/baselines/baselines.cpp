#include "sim/systems/baselines/baselines.h"

#include "sim/systems/baselines/cpu_only.h"
#include "sim/systems/baselines/gpu_only.h"
#include "sim/systems/baselines/npu_naive.h"
#include "sim/systems/baselines/npu_only.h"
#include "sim/systems/system.h"

namespace socsim::systems {

void register_baselines(SystemRegistry& r) {
  r.add("cpu-only", [] { return std::make_unique<CpuOnly>(); });
  r.add("gpu-only", [] { return std::make_unique<GpuOnly>(); });
  r.add("npu-naive", [] { return std::make_unique<NpuNaive>(); });
  r.add("npu-only", [] { return std::make_unique<NpuOnly>(); });
}

}  // namespace socsim::systems
