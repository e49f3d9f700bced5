#pragma once
// Sequential NPU work (no software pipeline: one step after another) takes the sum of its steps'
// times, so the steps on one engine can run as one: HMX GEMMs on operands already in TCM (compute
// only) as their summed cycles, DMA transfers as their summed bytes and set-ups, HVX work on the
// same threads as its summed packets. Each engine's work goes where that engine first appears in
// the op's steps since the last step that never merges (a GEMM staged from DRAM, a graph call),
// which stays a barrier: an attention part that alternates Q loads and Q K^T per head becomes one
// load and one multiply, while a per-group INT8 matmul keeps each group's requantization after
// its GEMM. Between barriers a later step's work can run before work it depends on (a head's
// softmax before another head's Q K^T): only each engine's total is kept, which is the op's time
// while DRAM's rate holds over it. An attention split into its parts (scores, softmax, context)
// listed a step per head and chunk of keys: a decode of llama-3-8b at batch 16 ran about 7 M of
// them. Where other jobs' traffic changes within the op, its DMA meets it at other moments.
// Pipelined work is returned unchanged (its stages overlap).
#include "kernels/lowering/work.h"
#include "sim/hw/npu/npu_spec.h"

namespace socsim::runtime::lowering {

kernels::NpuWork coalesce_sequential_steps(kernels::NpuWork work, const hw::NpuSpec& npu);

}  // namespace socsim::runtime::lowering
