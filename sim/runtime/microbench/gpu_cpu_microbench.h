#pragma once
// Microbenchmarks of the GPU and the CPU: a GEMM as one kernel/task, streaming reads, host<->device
// copies, and the GPU and NPU streaming together (DRAM contention between masters).
#include <nlohmann/json.hpp>

#include "sim/runtime/microbench/microbench.h"

namespace socsim::runtime {

nlohmann::ordered_json gpu_matmul(const MicrobenchRequest& r);
nlohmann::ordered_json gpu_read(const MicrobenchRequest& r);
nlohmann::ordered_json gpu_copy(const MicrobenchRequest& r);
nlohmann::ordered_json cpu_matmul(const MicrobenchRequest& r);
nlohmann::ordered_json cpu_read(const MicrobenchRequest& r);
nlohmann::ordered_json gpu_npu_read(const MicrobenchRequest& r);

}  // namespace socsim::runtime
