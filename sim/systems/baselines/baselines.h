#pragma once
// The baseline systems of the contract: cpu-only (llama.cpp-like), gpu-only (OpenCL-engine-like),
// npu-naive (whole prompt as NPU graphs built for its shape, per-group INT8), npu-only (static
// NPU graphs under a shape policy).
namespace socsim::systems {

class SystemRegistry;
void register_baselines(SystemRegistry& r);

}  // namespace socsim::systems
