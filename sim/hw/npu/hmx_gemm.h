#pragma once
// Runs a planned HMX GEMM (gemm_plan.h) on the NPU as a three-stage software pipeline: while HMX
// computes block i, DMA stages block i+1 and writes back block i-1. Time therefore comes out as
// whichever of data movement and tile compute binds, block by block, under DRAM contention.
// `blocks_done`, when given, advances as each block's outputs are computed (a consumer that
// streams them, sim/runtime/executor.cpp, follows it).
//
// Consecutive steps bound alike (all DMA-bound, or all compute-bound by a wide margin; the steady
// state's identical steps are the common case) run as one step of up to kMaxMergedGemmSteps
// steps' work: the same time whatever DRAM's rate does, far fewer events.
#include <cstddef>

#include "sim/core/sync.h"
#include "sim/core/task.h"
#include "sim/hw/npu/gemm_plan.h"
#include "sim/hw/npu/hexagon_npu.h"

namespace socsim::hw {

inline constexpr std::size_t kMaxMergedGemmSteps = 32;

// `copies` > 1: that many runs of the plan back to back (a batch of identical GEMMs, each staged
// from DRAM: one head's Q x K^T per head and sequence), their prologues and epilogues merged with
// the steps around them where bound alike (the merging above, across the runs: exact on an idle
// DRAM, approximate under contention that changes within a merged step, as the steady state's
// merging); no `blocks_done` then (std::invalid_argument).
Task<> run_hmx_gemm(HexagonNpu& npu, const GemmPlan& plan, std::string name, Progress* blocks_done = nullptr, std::size_t copies = 1);

}  // namespace socsim::hw
