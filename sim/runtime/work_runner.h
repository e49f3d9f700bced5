#pragma once
// Runs a kernel's lowered work (kernels/lowering/work.h) on a SoC's units: NPU steps in order,
// GPU kernels enqueued then waited for, CPU tasks one after another on the fastest cores.
#include "kernels/lowering/work.h"
#include "sim/hw/soc.h"

namespace socsim::runtime {

Task<> run_npu_step(hw::HexagonNpu& npu, const kernels::NpuStep& step);
Task<> run_work(hw::Soc& soc, kernels::NpuWork work);
Task<> run_work(hw::Soc& soc, kernels::GpuWork work);
Task<> run_work(hw::Soc& soc, kernels::CpuWork work);

}  // namespace socsim::runtime
