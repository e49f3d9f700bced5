#include "sim/runtime/lowering/npu_step_coalescing.h"

#include <algorithm>
#include <limits>
#include <utility>

#include "sim/hw/npu/gemm_plan.h"

namespace socsim::runtime::lowering {

namespace {

using kernels::NpuStep;
using Kind = NpuStep::Kind;

// A GEMM whose operands are all in TCM is HMX cycles and nothing else (GemmPlan: kAllInTcm).
NpuStep as_cycles(NpuStep s, const hw::NpuSpec& npu) {
  if (s.kind != Kind::kHmxGemm || s.home != hw::OperandHome::kTcm) return s;
  const hw::GemmPlanSummary plan = hw::plan_hmx_gemm_summary(npu, s.gemm, s.home);
  if (plan.strategy != hw::GemmStrategy::kAllInTcm) return s;
  return NpuStep::hmx_cycles_step(std::move(s.name), plan.total.hmx_cycles);
}

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

kernels::NpuWork coalesce_sequential_steps(kernels::NpuWork work, const hw::NpuSpec& npu) {
  if (work.pipelined() || work.steps.size() < 2) return work;
  std::vector<NpuStep> out;
  out.reserve(work.steps.size());
  // Steps that never merge (a GEMM staged from DRAM, a graph call) are barriers: work after one
  // stays after it (a per-group INT8 matmul's requantization of group g follows group g's GEMM).
  std::size_t barrier = 0;
  for (auto& step : work.steps) {
    NpuStep s = as_cycles(std::move(step), npu);
    // Into the first step of the same engine since the last barrier: the work's total per engine
    // is what its time is.
    bool merged = false;
    for (std::size_t o = barrier; o < out.size(); ++o) {
      if (mergeable(out[o], s)) {
        merged = merge_into(out[o], s, std::max<std::uint64_t>(1, npu.dma.channels));
        break;
      }
    }
    if (merged) continue;
    const bool never_merges = s.kind != Kind::kDma && s.kind != Kind::kHmxCycles && s.kind != Kind::kHvx;
    out.push_back(std::move(s));
    if (never_merges) barrier = out.size();
  }
  work.steps = std::move(out);
  return work;
}

}  // namespace socsim::runtime::lowering
