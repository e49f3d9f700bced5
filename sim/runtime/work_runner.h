#pragma once
// Runs a kernel's lowered work (kernels/lowering/work.h) on a SoC's units: NPU steps in order, or
// as the software pipeline the work declares; GPU kernels enqueued then waited for; CPU tasks one
// after another on the fastest cores.
#include "kernels/lowering/work.h"
#include "sim/hw/soc.h"

namespace socsim::runtime {

// `outputs`, when given, advances once per HMX GEMM block computed (gemm_blocks(work) in all).
Task<> run_npu_step(hw::HexagonNpu& npu, const kernels::NpuStep& step, Progress* outputs = nullptr);
// `work` must outlive the task (the executor's lowering cache, or run_work's own copy). Work that
// runs alone may be replayed (npu_alone_replay.h); `signature`, when given, is the work's
// npu_work_signature (taken once where the work is cached, not on every run).
Task<> run_npu_work(hw::HexagonNpu& npu, const kernels::NpuWork& work, Progress* outputs = nullptr,
                    const hw::NpuRunMemo::Key* signature = nullptr);
// HMX GEMM blocks (gemm_plan.h) the work's steps compute.
std::uint64_t gemm_blocks(const hw::NpuSpec& npu, const kernels::NpuWork& work);
Task<> run_work(hw::Soc& soc, kernels::NpuWork work);
Task<> run_work(hw::Soc& soc, kernels::GpuWork work);
Task<> run_work(hw::Soc& soc, kernels::CpuWork work);

}  // namespace socsim::runtime
