#include "sim/hw/npu/hmx_gemm.h"

#include <vector>

#include "sim/core/sync.h"

namespace socsim::hw {

Task<> run_hmx_gemm(HexagonNpu& npu, const GemmPlan& plan, std::string name, Progress* blocks_done) {
  const auto& blocks = plan.blocks;
  if (blocks.empty()) co_return;
  Simulator& sim = npu.sim();
  // Prologue: stage block 0.
  co_await npu.dma(blocks[0].stage_bytes, blocks[0].stage_transfers, name + " stage 0");
  for (std::size_t i = 0; i < blocks.size(); ++i) {
    std::vector<Task<>> step;
    step.push_back(npu.hmx(blocks[i].hmx_cycles, name + " block " + std::to_string(i)));
    if (i + 1 < blocks.size()) {
      step.push_back(npu.dma(blocks[i + 1].stage_bytes, blocks[i + 1].stage_transfers, name + " stage " + std::to_string(i + 1)));
    }
    if (i > 0 && blocks[i - 1].writeback_bytes > 0) {
      step.push_back(npu.dma(blocks[i - 1].writeback_bytes, 1, name + " writeback " + std::to_string(i - 1)));
    }
    co_await when_all(sim, std::move(step), name);
    if (blocks_done) blocks_done->advance();
  }
  // Epilogue: write back the last block.
  const auto& last = blocks.back();
  if (last.writeback_bytes > 0) co_await npu.dma(last.writeback_bytes, 1, name + " writeback last");
}

}  // namespace socsim::hw
