// The steps of sequential NPU work on one engine run as one, where that engine first appears: same
// time on an idle NPU, fewer steps; pipelined work and DRAM-staged GEMMs are left alone.
#include "sim/runtime/lowering/npu_step_coalescing.h"

#include <gtest/gtest.h>

#include "tests/unit/npu/npu_test_spec.h"
#include "sim/hw/npu/hexagon_npu.h"
#include "sim/runtime/work_runner.h"

namespace socsim::runtime::lowering {
namespace {

using kernels::NpuStep;
using kernels::NpuWork;
using Kind = NpuStep::Kind;

Tick idle_time(const NpuWork& w, const hw::NpuSpec& spec, std::uint64_t* events = nullptr) {
  Simulator sim;
  hw::DramModel dram{sim, 10e9, {1.0}};
  hw::HexagonNpu npu{sim, spec, dram, nullptr};
  sim.spawn(run_npu_work(npu, w), "work");
  EXPECT_EQ(sim.run(), RunResult::kIdle);
  if (events) *events = sim.events_fired();
  sim.kill_processes();
  return sim.now();
}

// Per head of a split attention: Q in, two chunks of Q K^T in TCM, then the next head.
NpuWork attention_like(std::uint32_t heads) {
  NpuWork w;
  for (std::uint32_t h = 0; h < heads; ++h) {
    w.steps.push_back(NpuStep::dma("q", 4096, 1));
    w.steps.push_back(NpuStep::hmx_gemm("qk", {32, 64, 192, hw::DType::kFp16}, hw::OperandHome::kTcm));
    w.steps.push_back(NpuStep::hmx_gemm("qk", {32, 64, 128, hw::DType::kFp16}, hw::OperandHome::kTcm));
    w.steps.push_back(NpuStep::hvx("softmax", 1000.5, 2));
    w.steps.push_back(NpuStep::hvx("softmax", 700, 2));
  }
  return w;
}

TEST(NpuStepCoalescing, EachEnginesStepsMergeWithTheSameTime) {
  const hw::NpuSpec spec = hw::test::small_npu();
  const NpuWork before = attention_like(8);
  const NpuWork after = coalesce_sequential_steps(before, spec);
  // All heads' DMA, then HMX (two GEMMs each), then HVX (two steps each): where each first appears.
  ASSERT_EQ(after.steps.size(), 3u);
  EXPECT_EQ(after.steps[0].kind, Kind::kDma);
  EXPECT_EQ(after.steps[0].bytes, 8u * 4096);
  EXPECT_EQ(after.steps[0].transfers, 8u);
  EXPECT_EQ(after.steps[1].kind, Kind::kHmxCycles);
  EXPECT_EQ(after.steps[1].hmx_cycles, 8 * (hw::plan_hmx_gemm(spec, {32, 64, 192, hw::DType::kFp16}, hw::OperandHome::kTcm).total.hmx_cycles +
                                            hw::plan_hmx_gemm(spec, {32, 64, 128, hw::DType::kFp16}, hw::OperandHome::kTcm).total.hmx_cycles));
  EXPECT_EQ(after.steps[2].kind, Kind::kHvx);
  EXPECT_DOUBLE_EQ(after.steps[2].packets, 8 * 1700.5);
  std::uint64_t events_before = 0, events_after = 0;
  const Tick t0 = idle_time(before, spec, &events_before), t1 = idle_time(after, spec, &events_after);
  // HVX rounds each step up to whole cycles: 500.25 + 350 cycles per thread as two steps (501 +
  // 350) per head against 6802 for all: the merged work is never slower, faster by those roundings.
  EXPECT_LE(t1, t0);
  EXPECT_LE(t0 - t1, 8 * kNanosecond);
  EXPECT_LT(events_after, events_before / 8);
  // The streaming block count follows the merge (one output block per merged HMX step).
  EXPECT_EQ(gemm_blocks(spec, after), 1u);
}

TEST(NpuStepCoalescing, DmaOnSeveralChannelsKeepsEachRequestsRounds) {
  hw::NpuSpec spec = hw::test::small_npu();
  spec.dma.channels = 4;
  NpuWork w;
  for (int i = 0; i < 6; ++i) w.steps.push_back(NpuStep::dma("kv", 1000, 5));  // 2 rounds each
  const NpuWork merged = coalesce_sequential_steps(w, spec);
  ASSERT_EQ(merged.steps.size(), 1u);
  EXPECT_EQ((merged.steps[0].transfers + 3) / 4, 12u);  // 6 x 2 rounds, not ceil(30 / 4) = 8
  EXPECT_EQ(idle_time(merged, spec), idle_time(w, spec));
}

TEST(NpuStepCoalescing, AStepThatNeverMergesIsABarrier) {
  // A per-group INT8 matmul: each group's GEMM (staged from DRAM) then its requantization on HVX.
  const hw::NpuSpec spec = hw::test::small_npu();
  NpuWork w;
  for (int g = 0; g < 3; ++g) {
    w.steps.push_back(NpuStep::hmx_gemm("group gemm", {32, 256, 256, hw::DType::kInt8}));
    w.steps.push_back(NpuStep::hvx("requantize", 100, 2));
    w.steps.push_back(NpuStep::hvx("accumulate", 50, 2));
  }
  const NpuWork after = coalesce_sequential_steps(w, spec);
  ASSERT_EQ(after.steps.size(), 6u);  // each group's HVX work merged, and kept after its GEMM
  for (int g = 0; g < 3; ++g) {
    EXPECT_EQ(after.steps[2 * g].kind, Kind::kHmxGemm);
    EXPECT_EQ(after.steps[2 * g + 1].kind, Kind::kHvx);
    EXPECT_DOUBLE_EQ(after.steps[2 * g + 1].packets, 150);
  }
}

TEST(NpuStepCoalescing, LeavesWhatDoesNotMergeExactly) {
  const hw::NpuSpec spec = hw::test::small_npu();
  NpuWork w;
  w.steps.push_back(NpuStep::hvx("a", 10, 1));
  w.steps.push_back(NpuStep::hvx("b", 10, 2));  // other threads
  w.steps.push_back(NpuStep::hmx_gemm("staged", {32, 256, 256, hw::DType::kFp16}));  // its own DMA pipeline
  w.steps.push_back(NpuStep::hmx_gemm("staged", {32, 256, 256, hw::DType::kFp16}));
  w.steps.push_back(NpuStep::graph_call("g", 3));
  w.steps.push_back(NpuStep::graph_call("g", 3));
  w.steps.push_back(NpuStep::hvx_stream("s", 100, 10, 2));
  w.steps.push_back(NpuStep::hvx_stream("s", 100, 10, 2));
  EXPECT_EQ(coalesce_sequential_steps(w, spec).steps.size(), w.steps.size());
  // A pipeline's stages overlap: nothing is merged.
  NpuWork p = attention_like(2);
  p.stages = {{"a", 2}, {"b", 0}};
  EXPECT_EQ(coalesce_sequential_steps(p, spec).steps.size(), p.steps.size());
}

// Every field a step's time or report reads (names too): what "the same steps" means below.
void expect_same_steps(const std::vector<NpuStep>& a, const std::vector<NpuStep>& b) {
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    SCOPED_TRACE(i);
    EXPECT_EQ(a[i].kind, b[i].kind);
    EXPECT_EQ(a[i].name, b[i].name);
    EXPECT_EQ(a[i].graph_ops, b[i].graph_ops);
    EXPECT_TRUE(a[i].gemm == b[i].gemm);
    EXPECT_EQ(a[i].home, b[i].home);
    EXPECT_EQ(a[i].hmx_cycles, b[i].hmx_cycles);
    EXPECT_EQ(a[i].packets, b[i].packets);  // exactly: the same additions in the same order
    EXPECT_EQ(a[i].threads, b[i].threads);
    EXPECT_EQ(a[i].bytes, b[i].bytes);
    EXPECT_EQ(a[i].transfers, b[i].transfers);
    EXPECT_EQ(a[i].stage, b[i].stage);
    EXPECT_EQ(a[i].iteration, b[i].iteration);
  }
}

TEST(NpuStepCoalescing, OneStepAtATimeIsTheSameAsTheWholeList) {
  // Steps added one by one give the whole list's coalescing, barriers and GEMM shapes that change
  // from one step to the next (the coalescer plans a shape once per run of it) included; and the
  // result coalesced again is itself (lower_op_npu coalesces parts that arrive coalesced).
  hw::NpuSpec spec = hw::test::small_npu();
  spec.dma.channels = 3;
  NpuWork w = attention_like(5);
  w.steps.push_back(NpuStep::hmx_gemm("staged", {32, 256, 256, hw::DType::kFp16}));  // a barrier
  for (int i = 0; i < 4; ++i) {
    w.steps.push_back(NpuStep::hmx_gemm("qk", {32, 64, 64u * (1 + i % 2), hw::DType::kFp16}, hw::OperandHome::kTcm));
    w.steps.push_back(NpuStep::dma("kv", 1000 + i, 2));
    w.steps.push_back(NpuStep::hvx("softmax", 0.1 * i, 1 + i % 2));
  }
  SequentialStepCoalescer c(spec);
  for (const NpuStep& s : w.steps) c.add(s);
  const std::vector<NpuStep> streamed = c.take();
  const NpuWork whole = coalesce_sequential_steps(w, spec);
  expect_same_steps(streamed, whole.steps);
  EXPECT_LT(streamed.size(), w.steps.size());
  for (const NpuStep& s : w.steps) c.add(s);  // take() started it over, barriers included
  expect_same_steps(c.take(), streamed);
  for (const NpuStep& s : streamed) c.add(s);
  expect_same_steps(c.take(), streamed);
}

}  // namespace
}  // namespace socsim::runtime::lowering
