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
#include <utility>
#include <vector>

#include "kernels/lowering/work.h"
#include "sim/hw/npu/npu_spec.h"

namespace socsim::runtime::lowering {

kernels::NpuWork coalesce_sequential_steps(kernels::NpuWork work, const hw::NpuSpec& npu);

// The same coalescing one step at a time, for a caller that makes steps as it goes and need not
// hold them (an attention part streamed from its kernel: flash_lower.h). Adding a work's steps in
// order and taking the result gives coalesce_sequential_steps' steps exactly, and adding those
// again changes nothing. A GEMM in TCM is planned once per shape met in a row (a part lists the
// same chunk shape thousands of times).
class SequentialStepCoalescer {
 public:
  explicit SequentialStepCoalescer(const hw::NpuSpec& npu) : npu_(npu) {}
  void add(kernels::NpuStep step);
  std::vector<kernels::NpuStep> take() {  // and starts over
    barrier_ = 0;
    return std::exchange(out_, {});
  }

 private:
  kernels::NpuStep as_cycles(kernels::NpuStep s);

  const hw::NpuSpec& npu_;
  std::vector<kernels::NpuStep> out_;
  std::size_t barrier_ = 0;  // out_ before it never takes work merged later
  // The last TCM-resident GEMM shape planned: whether its plan keeps all in TCM, and its cycles.
  bool planned_ = false;
  hw::GemmShape last_gemm_{};
  bool last_all_in_tcm_ = false;
  std::uint64_t last_cycles_ = 0;
};

}  // namespace socsim::runtime::lowering
