#include "sim/runtime/lowering/npu_step_coalescing.h"

#include <algorithm>
#include <limits>
#include <utility>

#include "sim/hw/npu/gemm_plan.h"

namespace socsim::runtime::lowering {

namespace {

using kernels::NpuStep;
using Kind = NpuStep::Kind;

bool fits_sum(std::uint64_t a, std::uint64_t b) { return a <= std::numeric_limits<std::uint64_t>::max() - b; }

// Whether two steps are the same engine's work of a kind that adds up (same HVX threads).
bool mergeable(const NpuStep& a, const NpuStep& b) {
  if (a.kind != b.kind) return false;
  return a.kind == Kind::kDma || a.kind == Kind::kHmxCycles || (a.kind == Kind::kHvx && a.threads == b.threads);
}

// Adds `next` into `into` when both are one engine's work that merges exactly; false otherwise.
// DMA transfers are set up `channels` at a time per request, so each request's count is taken in
// whole rounds: the merged request pays the rounds the steps paid one by one.
bool merge_into(NpuStep& into, const NpuStep& next, std::uint64_t channels) {
  if (into.kind != next.kind) return false;
  switch (into.kind) {
    case Kind::kHmxCycles:
      if (!fits_sum(into.hmx_cycles, next.hmx_cycles)) return false;
      into.hmx_cycles += next.hmx_cycles;
      return true;
    case Kind::kDma: {
      const auto whole = [channels](std::uint64_t t) { return t / channels * channels + (t % channels != 0 ? channels : 0); };
      if (into.transfers > std::numeric_limits<std::uint64_t>::max() / 2 || next.transfers > std::numeric_limits<std::uint64_t>::max() / 2) return false;
      if (!fits_sum(into.bytes, next.bytes) || !fits_sum(whole(into.transfers), whole(next.transfers))) return false;
      into.bytes += next.bytes;
      into.transfers = whole(into.transfers) + whole(next.transfers);
      return true;
    }
    case Kind::kHvx:
      if (into.threads != next.threads) return false;
      into.packets += next.packets;
      return true;
    default:
      return false;  // graph calls, GEMMs staged from DRAM (their own pipeline), HVX streams
  }
}

}  // namespace

NpuStep SequentialStepCoalescer::as_cycles(NpuStep s) {
  // A GEMM whose operands are all in TCM is HMX cycles and nothing else (GemmPlan: kAllInTcm).
  if (s.kind != Kind::kHmxGemm || s.home != hw::OperandHome::kTcm) return s;
  const hw::GemmShape& g = s.gemm;
  if (!planned_ || !(g == last_gemm_)) {
    const hw::GemmPlanSummary plan = hw::plan_hmx_gemm_summary(npu_, g, s.home);
    planned_ = true;
    last_gemm_ = g;
    last_all_in_tcm_ = plan.strategy == hw::GemmStrategy::kAllInTcm;
    last_cycles_ = plan.total.hmx_cycles;
  }
  if (!last_all_in_tcm_) return s;
  return NpuStep::hmx_cycles_step(std::move(s.name), last_cycles_);
}

void SequentialStepCoalescer::add(NpuStep step) {
  NpuStep s = as_cycles(std::move(step));
  // Into the first step of the same engine since the last barrier: the work's total per engine
  // is what its time is. Steps that never merge (a GEMM staged from DRAM, a graph call) are
  // barriers: work after one stays after it (a per-group INT8 matmul's requantization of group g
  // follows group g's GEMM).
  for (std::size_t o = barrier_; o < out_.size(); ++o) {
    if (mergeable(out_[o], s)) {
      if (merge_into(out_[o], s, std::max<std::uint64_t>(1, npu_.dma.channels))) return;
      break;
    }
  }
  const bool never_merges = s.kind != Kind::kDma && s.kind != Kind::kHmxCycles && s.kind != Kind::kHvx;
  out_.push_back(std::move(s));
  if (never_merges) barrier_ = out_.size();
}

kernels::NpuWork coalesce_sequential_steps(kernels::NpuWork work, const hw::NpuSpec& npu) {
  if (work.pipelined() || work.steps.size() < 2) return work;
  SequentialStepCoalescer c(npu);
  for (auto& step : work.steps) c.add(std::move(step));
  work.steps = c.take();
  return work;
}

}  // namespace socsim::runtime::lowering
