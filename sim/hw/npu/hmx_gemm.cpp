#include "sim/hw/npu/hmx_gemm.h"

#include <vector>

#include "sim/core/sync.h"

namespace socsim::hw {

Task<> run_hmx_gemm(HexagonNpu& npu, const GemmPlan& plan, std::string name, Progress* blocks_done) {
  const auto& blocks = plan.blocks;
  if (blocks.empty()) co_return;
  Simulator& sim = npu.sim();
  // Span names only when a trace records them: building them was a share of untraced runs.
  const bool named = npu.tracing();
  auto label = [&](const char* what, std::size_t i) { return named ? name + what + std::to_string(i) : std::string(); };
  // Prologue: stage block 0.
  co_await npu.dma(blocks[0].stage_bytes, blocks[0].stage_transfers, label(" stage ", 0));
  TaskList step;
  for (std::size_t i = 0; i < blocks.size(); ++i) {
    step.clear();
    step.push_back(npu.hmx(blocks[i].hmx_cycles, label(" block ", i)));
    if (i + 1 < blocks.size()) {
      step.push_back(npu.dma(blocks[i + 1].stage_bytes, blocks[i + 1].stage_transfers, label(" stage ", i + 1)));
    }
    if (i > 0 && blocks[i - 1].writeback_bytes > 0) {
      step.push_back(npu.dma(blocks[i - 1].writeback_bytes, 1, label(" writeback ", i - 1)));
    }
    co_await when_all(sim, std::move(step));
    if (blocks_done) blocks_done->advance();
  }
  // Epilogue: write back the last block.
  const auto& last = blocks.back();
  if (last.writeback_bytes > 0) {
    // Named in its own statement: GCC miscompiles a conditional's temporaries inside co_await.
    std::string last_name = named ? name + " writeback last" : std::string();
    co_await npu.dma(last.writeback_bytes, 1, std::move(last_name));
  }
}

}  // namespace socsim::hw
