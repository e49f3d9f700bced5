#include "sim/hw/npu/hmx_gemm.h"

#include <algorithm>
#include <stdexcept>
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

Task<> run_nothing() { co_return; }

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

// How a step's time is bound, and whether DRAM contention could change that. A step takes
// max(HMX, DMA); contention only lengthens the DMA side. DMA-bound on an idle NPU: it stays
// DMA-bound. Compute-bound with a wide margin: contention would have to slow DMA that much to
// change which side binds. In between (kFlippable), contention that comes and goes flips the
// bound from step to step.
enum class StepBound { kDma, kCompute, kFlippable };

StepBound step_bound(const StepWork& w, const NpuSpec& npu) {
  const double d = (w.stages ? idle_dma_seconds(npu, w.stage_bytes, w.stage_transfers) : 0.0) +
                   (w.writeback_bytes > 0 ? idle_dma_seconds(npu, w.writeback_bytes, 1) : 0.0);
  const double h = static_cast<double>(w.hmx_cycles) / static_cast<double>(npu.clock_hz);
  if (d >= h) return StepBound::kDma;
  return h >= kComputeBoundMargin * d ? StepBound::kCompute : StepBound::kFlippable;
}

// Consecutive steps bound alike (not kFlippable) run as one step of their summed work: DMA-bound
// ones take the sum of their transfers' times whatever DRAM's rate does meanwhile (a transfer's
// set-up rounds and bytes add up; HMX's sum stays below), compute-bound ones the sum of their HMX
// cycles. So the pipeline's time is unchanged while the events fall. Identical steps (the steady
// state) are the common case; the steps at a row block's edges differ from it and from each
// other but are usually bound alike too.
struct MergedStep {
  std::uint64_t hmx_cycles = 0;
  std::uint64_t stage_bytes = 0, stage_transfers = 0;  // transfers: whole rounds per step
  std::uint64_t writeback_bytes = 0, writeback_transfers = 0;
  void add(const StepWork& w, std::uint64_t channels) {
    const auto whole_rounds = [channels](std::uint64_t transfers) { return (transfers + channels - 1) / channels * channels; };
    hmx_cycles += w.hmx_cycles;
    if (w.stages) stage_bytes += w.stage_bytes, stage_transfers += whole_rounds(w.stage_transfers);
    if (w.writeback_bytes > 0) writeback_bytes += w.writeback_bytes, writeback_transfers += whole_rounds(1);
  }
};

}  // namespace

namespace {

// One GEMM at a time, prologue and epilogue on their own (what a consumer streaming the outputs
// follows block by block).
Task<> run_one(HexagonNpu& npu, const GemmPlan& plan, std::string name, Progress* blocks_done) {
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
  const std::uint64_t channels = npu.spec().dma.channels;
  for (std::size_t i = 0; i < blocks.size();) {
    // Steps bound alike merge (MergedStep). Capped, so DRAM contention that changes within a run
    // is still followed closely. With a consumer streaming the outputs (blocks_done: a Dequantize
    // behind the matmul) also tapered towards the end (at most an eighth of the steps left): it
    // gets the last blocks one by one and its tail after the GEMM stays one block's work.
    StepWork w = step_work(blocks, i);
    const StepBound bound = step_bound(w, npu.spec());
    const std::size_t left = blocks.size() - i;
    const std::size_t cap = bound == StepBound::kFlippable ? 1
                            : blocks_done                  ? std::clamp<std::size_t>(left / 8, 1, kMaxMergedGemmSteps)
                                                           : kMaxMergedGemmSteps;
    MergedStep m;
    m.add(w, channels);
    std::size_t r = 1;
    while (i + r < blocks.size() && r < cap) {
      const StepWork next = step_work(blocks, i + r);
      if (!(next == w) && step_bound(next, npu.spec()) != bound) break;  // (an identical step is bound alike)
      w = next;
      m.add(w, channels);
      ++r;
    }
    step.clear();
    step.push_back(npu.hmx(m.hmx_cycles, label(" block ", i, r)));
    // Transfers set up `channels` at a time, per request: merged steps pay each step's rounds
    // (a step of 17 transfers on 4 channels is 5), as MergedStep counts them.
    if (m.stage_bytes > 0 || m.stage_transfers > 0) step.push_back(npu.dma(m.stage_bytes, m.stage_transfers, label(" stage ", i + 1, r)));
    if (m.writeback_bytes > 0) step.push_back(npu.dma(m.writeback_bytes, m.writeback_transfers, label(" writeback ", i == 0 ? 0 : i - 1, r)));
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


// `copies` runs back to back as one sequence of steps: each run's prologue (staging block 0) and
// epilogue (writing back the last block) are DMA-only steps, bound by DMA like the steps around
// them when those are DMA-bound, so they merge with them (MergedStep): a batch of small GEMMs (a
// head's Q x K^T per head and sequence) that each took a prologue, one step and an epilogue runs
// as a few merged steps. On an idle DRAM that is the runs one after another to the tick; under
// contention that changes within a merged step it is an approximation of the same kind as the
// steady state's merging: a merged request pays its set-up rounds first and then moves all its
// bytes, and at a boundary between runs the next run's staging queues before the last run's
// write-back on the one DMA engine (shadowattn b16: 1.3% of the prefill moved).
Task<> run_copies(HexagonNpu& npu, const GemmPlan& plan, std::string name, std::size_t copies) {
  const auto& blocks = plan.blocks;
  Simulator& sim = npu.sim();
  const bool named = npu.tracing();
  const std::size_t per = blocks.size() + 2, total = per * copies;
  const auto step_at = [&blocks, per](std::size_t v) {
    const std::size_t p = v % per;
    StepWork w;
    if (p == 0) {  // prologue: stage block 0
      w.stages = true;
      w.stage_bytes = blocks.front().stage_bytes;
      w.stage_transfers = blocks.front().stage_transfers;
    } else if (p + 1 == per) {  // epilogue: write back the last block (one transfer)
      w.writeback_bytes = blocks.back().writeback_bytes;
    } else {
      w = step_work(blocks, p - 1);
    }
    return w;
  };
  auto label = [&](const char* what, std::size_t v, std::size_t r) {
    if (!named) return std::string();
    return name + what + std::to_string(v) + "-" + std::to_string(v + r - 1);
  };
  TaskList step;
  const std::uint64_t channels = npu.spec().dma.channels;
  for (std::size_t v = 0; v < total;) {
    StepWork w = step_at(v);
    const StepBound bound = step_bound(w, npu.spec());
    const std::size_t cap = bound == StepBound::kFlippable ? 1 : kMaxMergedGemmSteps;
    MergedStep m;
    m.add(w, channels);
    std::size_t r = 1;
    while (v + r < total && r < cap) {
      const StepWork next = step_at(v + r);
      if (!(next == w) && step_bound(next, npu.spec()) != bound) break;
      w = next;
      m.add(w, channels);
      ++r;
    }
    step.clear();
    if (m.hmx_cycles > 0) step.push_back(npu.hmx(m.hmx_cycles, label(" steps ", v, r)));
    if (m.stage_bytes > 0 || m.stage_transfers > 0) step.push_back(npu.dma(m.stage_bytes, m.stage_transfers, label(" stage ", v, r)));
    if (m.writeback_bytes > 0) step.push_back(npu.dma(m.writeback_bytes, m.writeback_transfers, label(" writeback ", v, r)));
    if (!step.empty()) co_await when_all(sim, std::move(step));
    v += r;
  }
}

}  // namespace

Task<> run_hmx_gemm(HexagonNpu& npu, const GemmPlan& plan, std::string name, Progress* blocks_done, std::size_t copies) {
  if (copies == 0 || plan.blocks.empty()) return run_nothing();
  if (copies > 1 && blocks_done) throw std::invalid_argument("run_hmx_gemm: a consumer streams the outputs of one GEMM, not of copies");
  if (copies == 1) return run_one(npu, plan, std::move(name), blocks_done);
  return run_copies(npu, plan, std::move(name), copies);
}

}  // namespace socsim::hw
