#pragma once
// Runs a planned HMX GEMM (gemm_plan.h) on the NPU as a three-stage software pipeline: while HMX
// computes block i, DMA stages block i+1 and writes back block i-1. Time therefore comes out as
// whichever of data movement and tile compute binds, block by block, under DRAM contention.
#include "sim/core/task.h"
#include "sim/hw/npu/gemm_plan.h"
#include "sim/hw/npu/hexagon_npu.h"

namespace socsim::hw {

Task<> run_hmx_gemm(HexagonNpu& npu, const GemmPlan& plan, std::string name);

}  // namespace socsim::hw
