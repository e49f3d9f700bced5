#pragma once
// Sequential NPU work (no software pipeline: one step after another) takes the sum of its steps'
// times, so consecutive steps on one engine can run as one: HMX GEMMs on operands already in TCM
// (compute only) as their summed cycles, DMA transfers as their summed bytes and set-ups, HVX work
// on the same threads as its summed packets. An attention split into its parts (scores, softmax,
// context) lists a step per head and chunk of keys: a decode step of llama-3-8b at batch 16 ran
// about 7 M of them. Merged, the time is the same while DRAM's rate holds over the merged
// transfer (the engines are the same, the work is the same), with a fraction of the events.
//
// Only consecutive steps merge: the order of the engines, and so how the work meets other jobs'
// DRAM traffic, is kept. Pipelined work is returned unchanged (its stages overlap).
#include "kernels/lowering/work.h"
#include "sim/hw/npu/npu_spec.h"

namespace socsim::runtime::lowering {

kernels::NpuWork coalesce_sequential_steps(kernels::NpuWork work, const hw::NpuSpec& npu);

}  // namespace socsim::runtime::lowering
