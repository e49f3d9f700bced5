#include "sim/hw/npu/gemm_plan.h"

// The per-thread memo of HMX GEMM plans (gemm_plan.h's plan_hmx_gemm, idle_hmx_gemm_seconds and
// plan_hmx_gemm_summary): the plans themselves are computed in gemm_plan.cpp.
#include <bit>
#include <cstddef>
#include <unordered_map>

#include "sim/core/field_hash.h"

namespace socsim::hw {

namespace {

// Everything of the NPU and the request that a plan depends on (geometry, finish_block,
// idle_pipeline_seconds and the TCM budget read nothing else).
struct PlanKey {
  std::uint32_t units, tile_rows, fp16_depth, int8_depth;
  std::uint64_t fp16_op, int8_op, weight_load, output_tile;
  std::uint64_t tcm, clock_hz;
  double dma_bw, port_bw;
  Tick descriptor_overhead;
  std::uint32_t channels;
  std::uint32_t crouton_h, crouton_w8, crouton_w16;
  std::uint64_t m, k, n, width;
  int dtype, home;
  std::uint32_t out_bytes, weight_bits;
  bool operator==(const PlanKey&) const = default;
};

PlanKey key_of(const NpuSpec& npu, const GemmShape& s, OperandHome home) {
  const auto& h = npu.hmx;
  return {h.units, h.tile_rows, h.fp16_tile_depth, h.int8_tile_depth, h.fp16_tile_op_cycles, h.int8_tile_op_cycles,
          h.weight_load_cycles, h.output_tile_cycles, npu.tcm_bytes, npu.clock_hz, npu.dma.bandwidth,
          npu.port_bandwidth, npu.dma.descriptor_overhead, npu.dma.channels, npu.layout.crouton_height,
          npu.layout.crouton_width_int8, npu.layout.crouton_width_fp16, s.m, s.k, s.n, s.width,
          static_cast<int>(s.dtype), static_cast<int>(home), s.out_bytes, s.weight_bits};
}

// Every field (a sweep over an NPU parameter keeps one thread's plans for many NPUs), one
// multiply each: a tree of these keys compared twenty equal NPU fields at every level.
struct PlanKeyHash {
  // Equal doubles hash alike (-0.0 == 0.0; a NaN key never equals itself and is only ever a miss).
  static std::uint64_t bits(double x) { return std::bit_cast<std::uint64_t>(x == 0.0 ? 0.0 : x); }
  std::size_t operator()(const PlanKey& k) const {
    return hash_fields({k.m, k.k, k.n, k.width, std::uint64_t(k.dtype), std::uint64_t(k.home), k.out_bytes, k.weight_bits, k.tcm, k.units, k.tile_rows,
                        k.fp16_depth, k.int8_depth, k.fp16_op, k.int8_op, k.weight_load, k.output_tile, k.clock_hz,
                        bits(k.dma_bw), bits(k.port_bw), k.descriptor_overhead,
                        k.channels, k.crouton_h, k.crouton_w8, k.crouton_w16});
  }
};

// Plans memoized per thread: lowering, the block count of each lowered op and the NPU model each
// ask for the same few shapes, and HeteroLLM's partition profiler builds a fresh NPU per
// candidate (planning was a third of a hetero-tensor run). Bounded by the blocks held.
struct PlanMemo {
  std::unordered_map<PlanKey, GemmPlan, PlanKeyHash> plans;
  std::unordered_map<PlanKey, double, PlanKeyHash> idle_seconds;  // of plans timed idle (layout searches)
  // Summaries of plans asked for only as a summary (HeteroLLM's partition bounds cost thousands of
  // candidate shapes that never run: keeping their blocks was most of a hetero-tensor run's memory).
  std::unordered_map<PlanKey, GemmPlanSummary, PlanKeyHash> summaries;
  std::size_t blocks = 0;
  static constexpr std::size_t kBlockLimit = 1 << 18;  // ~14 MB of blocks per thread
  static constexpr std::size_t kIdleLimit = 1 << 16;    // idle times (and summaries) kept (~16 MB of keys at most)
  // A plan asked for as a summary is kept whole up to this many blocks, else as its summary only.
  static constexpr std::size_t kWholeBlocks = 64;
};
thread_local PlanMemo plan_memo;

}  // namespace

namespace {

// Keeps `plan` (bounded by the blocks held: the memo starts over when full) and returns the kept
// copy, or null, leaving `plan` as it was, when it alone is larger than the bound.
const GemmPlan* remember(const PlanKey& key, GemmPlan&& plan) {
  if (plan.blocks.size() > PlanMemo::kBlockLimit) return nullptr;
  if (plan_memo.blocks + plan.blocks.size() > PlanMemo::kBlockLimit) {
    plan_memo.plans.clear();
    plan_memo.idle_seconds.clear();
    plan_memo.blocks = 0;
  }
  plan_memo.blocks += plan.blocks.size();
  return &plan_memo.plans.emplace(key, std::move(plan)).first->second;
}

// `use` applied to the memoized plan (computed and remembered on a miss), without copying it.
template <class Use>
auto with_plan(const NpuSpec& npu, const GemmShape& s, OperandHome home, Use use) {
  const PlanKey key = key_of(npu, s, home);
  if (auto it = plan_memo.plans.find(key); it != plan_memo.plans.end()) return use(it->second);
  GemmPlan plan = compute_hmx_gemm_plan(npu, s, home);
  if (const GemmPlan* kept = remember(key, std::move(plan))) return use(*kept);
  return use(plan);  // too large to keep (remember left it alone)
}

}  // namespace

GemmPlan plan_hmx_gemm(const NpuSpec& npu, const GemmShape& s, OperandHome home) {
  return with_plan(npu, s, home, [](const GemmPlan& p) { return p; });
}

double idle_hmx_gemm_seconds(const NpuSpec& npu, const GemmShape& s, OperandHome home) {
  const PlanKey key = key_of(npu, s, home);
  if (const auto it = plan_memo.idle_seconds.find(key); it != plan_memo.idle_seconds.end()) return it->second;
  const double t = with_plan(npu, s, home, [&npu](const GemmPlan& p) { return idle_plan_seconds(npu, p); });
  // Cleared with the plans (with_plan above may just have started the memo over), and bounded on
  // its own too: a plan too large to keep is still timed.
  if (plan_memo.idle_seconds.size() >= PlanMemo::kIdleLimit) plan_memo.idle_seconds.clear();
  plan_memo.idle_seconds.emplace(key, t);
  return t;
}

GemmPlanSummary plan_hmx_gemm_summary(const NpuSpec& npu, const GemmShape& s, OperandHome home) {
  const auto summary = [](const GemmPlan& p) { return GemmPlanSummary{p.strategy, p.total, p.blocks.size()}; };
  const PlanKey key = key_of(npu, s, home);
  if (const auto it = plan_memo.plans.find(key); it != plan_memo.plans.end()) return summary(it->second);
  if (const auto it = plan_memo.summaries.find(key); it != plan_memo.summaries.end()) return it->second;
  const GemmPlanSummary out = compute_hmx_gemm_summary(npu, s, home);
  if (out.blocks <= PlanMemo::kWholeBlocks) {
    remember(key, compute_hmx_gemm_plan(npu, s, home));  // small: kept whole, for the NPU model's next request
  } else {
    if (plan_memo.summaries.size() >= PlanMemo::kIdleLimit) plan_memo.summaries.clear();
    plan_memo.summaries.emplace(key, out);
  }
  return out;
}


}  // namespace socsim::hw
