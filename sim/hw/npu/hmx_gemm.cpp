#include "sim/hw/npu/hmx_gemm.h"

#include <algorithm>
#include <vector>

#include "sim/core/sync.h"

namespace socsim::hw {

namespace {

// What one step of the pipeline does: HMX on block i, staging of block i+1, write-back of block i-1.
struct StepWork {
  std::uint64_t hmx_cycles = 0;
  bool stages = false;
  std::uint64_t stage_bytes = 0, stage_transfers = 0;
  std::uint64_t writeback_bytes = 0;
  bool operator==(const StepWork&) const = default;
};

constexpr double kComputeBoundMargin = 4;

StepWork step_work(const std::vector<GemmBlock>& blocks, std::size_t i) {
  StepWork w;
  w.hmx_cycles = blocks[i].hmx_cycles;
  if (i + 1 < blocks.size()) {
    w.stages = true;
    w.stage_bytes = blocks[i + 1].stage_bytes;
    w.stage_transfers = blocks[i + 1].stage_transfers;
  }
  if (i > 0) w.writeback_bytes = blocks[i - 1].writeback_bytes;
  return w;
}

// Whether r such steps as one take r times one step's time whatever DRAM does meanwhile. A step
// takes max(HMX, DMA); DRAM contention only lengthens the DMA side. DMA-bound on an idle NPU: it
// stays DMA-bound, and summed DMA under any rate is the sum of the steps' DMA. Compute-bound with a
// wide margin: contention would have to slow DMA that much to change which side binds. In between,
// contention that comes and goes flips the bound from step to step, and the merged step (the max of
// sums) would undercount the steps' sum of maxima.
bool merges_exactly(const StepWork& w, const NpuSpec& npu) {
  const double d = (w.stages ? idle_dma_seconds(npu, w.stage_bytes, w.stage_transfers) : 0.0) +
                   (w.writeback_bytes > 0 ? idle_dma_seconds(npu, w.writeback_bytes, 1) : 0.0);
  const double h = static_cast<double>(w.hmx_cycles) / static_cast<double>(npu.clock_hz);
  return d >= h || h >= kComputeBoundMargin * d;
}

}  // namespace

Task<> run_hmx_gemm(HexagonNpu& npu, const GemmPlan& plan, std::string name, Progress* blocks_done) {
  const auto& blocks = plan.blocks;
  if (blocks.empty()) co_return;
  Simulator& sim = npu.sim();
  // Span names only when a trace records them: building them was a share of untraced runs.
  const bool named = npu.tracing();
  auto label = [&](const char* what, std::size_t i, std::size_t r) {
    if (!named) return std::string();
    return r == 1 ? name + what + std::to_string(i) : name + what + std::to_string(i) + "-" + std::to_string(i + r - 1);
  };
  // Prologue: stage block 0.
  co_await npu.dma(blocks[0].stage_bytes, blocks[0].stage_transfers, label(" stage ", 0, 1));
  TaskList step;
  for (std::size_t i = 0; i < blocks.size();) {
    // A run of identical steps (the steady state: equal blocks of weight columns or row blocks)
    // goes as one step of r times the work: with the DMA and HMX rates constant over it, its time
    // is r times one step's, max(HMX, DMA) each, so the pipeline's time is unchanged while the
    // events fall r-fold. Only steps whose bound DRAM contention cannot flip (merges_exactly).
    // Capped, so DRAM contention that changes within a run is still followed closely, and tapered towards the end (at most an eighth of the steps left), so that a
    // consumer streaming the outputs (a Dequantize behind the matmul) still gets the last blocks
    // one by one and its tail after the GEMM stays one block's work.
    const StepWork w = step_work(blocks, i);
    const std::size_t cap =
        merges_exactly(w, npu.spec()) ? std::clamp<std::size_t>((blocks.size() - i) / 8, 1, kMaxMergedGemmSteps) : 1;
    std::size_t r = 1;
    while (i + r < blocks.size() && r < cap && step_work(blocks, i + r) == w) ++r;
    step.clear();
    step.push_back(npu.hmx(w.hmx_cycles * r, label(" block ", i, r)));
    // Transfers set up `channels` at a time, per request: r steps pay r times one step's rounds,
    // so the merged request asks for whole rounds (a step of 17 transfers on 4 channels is 5).
    const std::uint64_t ch = npu.spec().dma.channels;
    const auto whole_rounds = [ch](std::uint64_t transfers) { return (transfers + ch - 1) / ch * ch; };
    if (w.stages) step.push_back(npu.dma(w.stage_bytes * r, whole_rounds(w.stage_transfers) * r, label(" stage ", i + 1, r)));
    if (w.writeback_bytes > 0) step.push_back(npu.dma(w.writeback_bytes * r, whole_rounds(1) * r, label(" writeback ", i - 1, r)));
    co_await when_all(sim, std::move(step));
    if (blocks_done) blocks_done->advance(r);
    i += r;
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
